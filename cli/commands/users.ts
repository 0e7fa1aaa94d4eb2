/** svc users create | list (superusers; /api/v1/users). Who you are: svc whoami. Team roles: svc teams add-member. */
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';
import { askHidden, isInteractive, readStdin } from '../prompt.ts';
import { CliError } from '../cli-error.ts';

interface User {
  id: string;
  username: string;
  email: string | null;
  is_superuser: boolean;
  created_at: string;
}

const COLUMNS: Column<User>[] = [
  { title: 'id', value: (u) => u.id },
  { title: 'username', value: (u) => u.username },
  { title: 'email', value: (u) => u.email },
  { title: 'superuser', value: (u) => u.is_superuser },
  { title: 'created', value: (u) => u.created_at },
];

const create = defineCommand({
  name: 'create',
  summary: 'Create a user (superusers)',
  description: 'Create a user who signs in with a password (svc login, the panel). The password is asked for (not echoed), or read from stdin with --password-stdin.',
  args: [{ name: 'username', required: true, description: 'Letters, digits, ".", "_" and "-", up to 64.' }],
  options: {
    email: { type: 'string', value: 'EMAIL', description: 'Their email address.' },
    superuser: { type: 'boolean', description: 'An administrator of this instance.' },
    'password-stdin': { type: 'boolean', description: 'Read the password from stdin instead of asking.' },
  },
  examples: ['svc users create alice --email alice@example.com', 'printf %s "$PASSWORD" | svc users create ci --password-stdin'],
  async run(ctx) {
    let password: string;
    if (ctx.opts['password-stdin']) password = await readStdin('The password');
    else if (isInteractive()) {
      password = await askHidden(`Password for ${ctx.args.username}: `);
      if ((await askHidden('Again: ')) !== password) throw new CliError('usage', 'The two passwords differ; nothing was created.', { helpFor: 'svc users create' });
    } else throw new CliError('usage', 'No terminal to ask the password on: pipe it with --password-stdin.', { helpFor: 'svc users create' });
    const u = await ctx.api().post<User>('/api/v1/users', {
      username: ctx.args.username, password, ...(ctx.opts.email ? { email: ctx.opts.email } : {}), ...(ctx.opts.superuser ? { is_superuser: true } : {}),
    });
    ctx.out.result(u, () => ctx.out.line(`Created ${u.is_superuser ? 'superuser' : 'user'} ${u.username} (${u.id}). Give them a team with "svc teams add-member TEAM ${u.username}".`));
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List users (superusers)',
  examples: ['svc users list'],
  async run(ctx) {
    const items = await ctx.api().listAll<User>('/api/v1/users');
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, COLUMNS, 'No users.'));
  },
});

export const usersGroup = defineGroup('users', 'Users of this instance (superusers)', [create, list]);
