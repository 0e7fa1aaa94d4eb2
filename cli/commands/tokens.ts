/** svc tokens create | list | revoke: API tokens `tk_…` (/api/v1/tokens). */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';

interface Token {
  id: string;
  user: string;
  name: string;
  scope: string;
  hint: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

const SCOPES = ['read', 'deploy', 'write'];

const COLUMNS: Column<Token>[] = [
  { title: 'id', value: (t) => t.id },
  { title: 'name', value: (t) => t.name },
  { title: 'scope', value: (t) => t.scope },
  { title: 'hint', value: (t) => t.hint },
  { title: 'expires', value: (t) => t.expires_at ?? 'never' },
  { title: 'last used', value: (t) => t.last_used_at },
  { title: 'revoked', value: (t) => t.revoked_at },
];

const create = defineCommand({
  name: 'create',
  summary: 'Create an API token; the secret is printed once',
  description: 'Create an API token for yourself (or, as an administrator, for --user). The secret is printed once: store it now.',
  options: {
    name: { type: 'string', value: 'NAME', required: true, description: 'What the token is for, e.g. ci or laptop.' },
    scope: { type: 'string', value: 'read|deploy|write', description: 'read = reading; deploy = reading plus what CI does; write = everything your role allows (default read).' },
    ttl: { type: 'string', value: 'TTL', description: 'Lifetime: seconds, a duration such as 12h, 30d or 2w, or never (default 90d).' },
    user: { type: 'string', value: 'USER', description: 'Administrators: the user (id or name) the token is for.' },
  },
  examples: ['svc tokens create --name ci --scope deploy --ttl 30d', 'TOKEN=$(svc tokens create --name ci --json | jq -r .token)'],
  async run(ctx) {
    const { name, scope, ttl, user } = ctx.opts;
    if (scope !== undefined && !SCOPES.includes(scope)) throw new CliError('usage', `The scope must be read, deploy or write (got "${scope}").`, { helpFor: 'svc tokens create' });
    const body: Record<string, string> = { name: name as string };
    if (scope !== undefined) body.scope = scope;
    if (ttl !== undefined) body.ttl = ttl;
    if (user !== undefined) body.user = user;
    const t = await ctx.api().post<Token & { token: string }>('/api/v1/tokens', body);
    ctx.out.result(t, () => {
      ctx.out.fields([['id', t.id], ['name', t.name], ['scope', t.scope], ['expires', t.expires_at ?? 'never']]);
      ctx.out.line();
      ctx.out.line('Token (shown once, store it now):');
      ctx.out.line(t.token);
    });
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List your API tokens (administrators: any user with --user)',
  options: {
    user: { type: 'string', value: 'USER', description: "Administrators: list this user's tokens." },
    limit: { type: 'string', value: 'N', description: 'Show one page of N tokens (1 to 200) instead of all.' },
    cursor: { type: 'string', value: 'CURSOR', description: 'With --limit: the next_cursor of the previous page.' },
  },
  examples: ['svc tokens list', 'svc tokens list --json'],
  async run(ctx) {
    const api = ctx.api();
    const query = { user: ctx.opts.user };
    if (ctx.opts.limit !== undefined) {
      const page = await api.get<{ items: Token[]; next_cursor: string | null }>('/api/v1/tokens', { ...query, limit: ctx.opts.limit, cursor: ctx.opts.cursor });
      ctx.out.result(page, () => {
        ctx.out.table(page.items, COLUMNS, 'No tokens.');
        if (page.next_cursor) ctx.out.note(`More: svc tokens list --limit ${ctx.opts.limit} --cursor ${page.next_cursor}`);
      });
      return;
    }
    const items = await api.listAll<Token>('/api/v1/tokens', query);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, COLUMNS, 'No tokens.'));
  },
});

const revoke = defineCommand({
  name: 'revoke',
  summary: 'Revoke an API token at once',
  args: [{ name: 'id', required: true, description: 'The token id (from svc tokens list).' }],
  examples: ['svc tokens revoke 3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const id = ctx.args.id as string;
    const t = await ctx.api().delete<Token>(`/api/v1/tokens/${seg(id)}`);
    ctx.out.result(t, () => ctx.out.line(`Revoked token ${t.id} (${t.name}).`));
  },
});

export const tokensGroup = defineGroup('tokens', 'Manage API tokens (tk_…)', [create, list, revoke]);
