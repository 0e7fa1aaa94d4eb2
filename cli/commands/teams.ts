/** svc teams create | list | limits | compression | members | add-member | remove-member (/api/v1/teams). */
import { seg } from '../api-client.ts';
import { CliError } from '../cli-error.ts';
import { defineCommand, defineGroup } from '../command.ts';
import { compressionFromOption } from './ai-key-options.ts';

interface Team {
  id: string;
  name: string;
  limits: Record<string, number>;
  created_at: string;
}

type Limits = Record<string, number | null>;

/** Command-line flag → limit name of the API. */
const LIMIT_FLAGS = { 'ai-keys': 'ai.keys', 'ai-tokens': 'ai.tokens', 'errors-events': 'errors.events' } as const;

const LIMIT_TEXT: Record<string, string> = {
  'ai.keys': 'gateway keys the team may have',
  'ai.tokens': 'AI tokens per calendar month (UTC) across the team',
  'errors.events': 'error events per calendar month (UTC)',
};

/** A whole number ≥ 0, or none/unlimited for no limit. */
export function parseLimitValue(flag: string, raw: string): number | null {
  if (/^(none|unlimited)$/i.test(raw)) return null;
  if (!/^\d{1,15}$/.test(raw)) throw new CliError('usage', `--${flag} must be a whole number of 0 or more, or "none" (got "${raw}").`, { helpFor: 'svc teams limits' });
  return Number(raw);
}

const create = defineCommand({
  name: 'create',
  summary: 'Create a team; you become its owner',
  args: [{ name: 'name', required: true, description: 'A DNS label: lowercase letters, digits and hyphens.' }],
  examples: ['svc teams create payments'],
  async run(ctx) {
    const t = await ctx.api().post<Team>('/api/v1/teams', { name: ctx.args.name });
    ctx.out.result(t, () => ctx.out.line(`Created team ${t.name} (${t.id}).`));
  },
});

const list = defineCommand({
  name: 'list',
  summary: 'List the teams you can see',
  examples: ['svc teams list', 'svc teams list --json'],
  async run(ctx) {
    const items = await ctx.api().listAll<Team>('/api/v1/teams');
    ctx.out.result({ items, next_cursor: null }, () =>
      ctx.out.table(items, [
        { title: 'name', value: (t) => t.name },
        { title: 'id', value: (t) => t.id },
        { title: 'limits', value: (t) => Object.entries(t.limits ?? {}).map(([k, v]) => `${k}=${v}`).join(' ') || 'none' },
        { title: 'created', value: (t) => t.created_at },
      ], 'No teams.'),
    );
  },
});

const limits = defineCommand({
  name: 'limits',
  summary: "Show a team's limits, or set them (administrators)",
  description:
    "Show a team's limits; with options, set them (instance administrators only). Limits not named keep their value; \"none\" removes a limit.\n" +
    Object.entries(LIMIT_TEXT).map(([k, v]) => `  ${k}: ${v}`).join('\n'),
  args: [{ name: 'team', required: true, description: 'Team name or id.' }],
  options: {
    'ai-keys': { type: 'string', value: 'N', description: 'Gateway keys the team may have (or none).' },
    'ai-tokens': { type: 'string', value: 'N', description: 'AI tokens per calendar month, UTC (or none).' },
    'errors-events': { type: 'string', value: 'N', description: 'Error events per calendar month, UTC (or none).' },
  },
  examples: ['svc teams limits payments', 'svc teams limits payments --ai-keys 10 --ai-tokens 5000000', 'svc teams limits payments --errors-events none'],
  async run(ctx) {
    const api = ctx.api();
    const path = `/api/v1/teams/${seg(ctx.args.team as string)}/limits`;
    const changes: Limits = {};
    for (const [flag, name] of Object.entries(LIMIT_FLAGS)) {
      const raw = ctx.opts[flag as keyof typeof LIMIT_FLAGS];
      if (raw !== undefined) changes[name] = parseLimitValue(flag, raw);
    }
    let result: Limits = await api.get<Limits>(path);
    // PUT replaces every limit: send the current ones with the changes applied.
    if (Object.keys(changes).length) result = await api.put<Limits>(path, { ...result, ...changes });
    ctx.out.result(result, () =>
      ctx.out.fields(Object.keys(LIMIT_TEXT).map((n): [string, unknown] => [n, result[n] ?? 'unlimited'])),
    );
  },
});

const compression = defineCommand({
  name: 'compression',
  summary: "Show a team's compression mode, or set it (team admins)",
  description: "Show a team's conversation compression mode; with --compression, set it. A team can only lower the instance's mode (docs/compression.md); inherit removes the team's own.",
  args: [{ name: 'team', required: true, description: 'Team name or id.' }],
  options: { compression: { type: 'string', value: 'off|audit-only|on|inherit', description: 'The mode for the team.' } },
  examples: ['svc teams compression payments', 'svc teams compression payments --compression audit-only'],
  async run(ctx) {
    const path = `/api/v1/teams/${seg(ctx.args.team as string)}/compression`;
    const mode = compressionFromOption(ctx.opts.compression, 'svc teams compression');
    const api = ctx.api();
    const result = mode === undefined ? await api.get<{ team: string; mode: string | null }>(path) : await api.put<{ team: string; mode: string | null }>(path, { mode });
    ctx.out.result(result, () => ctx.out.fields([['team', result.team], ['compression', result.mode ?? 'inherit']]));
  },
});

const members = defineCommand({
  name: 'members',
  summary: "List a team's members and their roles",
  args: [{ name: 'team', required: true, description: 'Team name or id.' }],
  examples: ['svc teams members payments'],
  async run(ctx) {
    const page = await ctx.api().get<{ items: { user: string; username: string; role: string; created_at: string }[] }>(`/api/v1/teams/${seg(ctx.args.team as string)}/members`);
    ctx.out.result(page, () =>
      ctx.out.table(page.items, [
        { title: 'user', value: (m) => m.username },
        { title: 'id', value: (m) => m.user },
        { title: 'role', value: (m) => m.role },
        { title: 'since', value: (m) => m.created_at },
      ], 'No members.'),
    );
  },
});

const ROLES = ['viewer', 'member', 'admin', 'owner'];

const addMember = defineCommand({
  name: 'add-member',
  summary: "Add a user to a team or change their role (team admins; owners for owner)",
  args: [
    { name: 'team', required: true, description: 'Team name or id.' },
    { name: 'user', required: true, description: 'User name or id.' },
  ],
  options: { role: { type: 'string', value: 'viewer|member|admin|owner', required: true, description: 'The role in the team.' } },
  examples: ['svc teams add-member payments alice --role member'],
  async run(ctx) {
    const role = ctx.opts.role as string;
    if (!ROLES.includes(role)) throw new CliError('usage', `The role must be one of ${ROLES.join(', ')} (got "${role}").`, { helpFor: 'svc teams add-member' });
    const r = await ctx.api().put<{ user: string; role: string }>(`/api/v1/teams/${seg(ctx.args.team as string)}/members/${seg(ctx.args.user as string)}`, { role });
    ctx.out.result(r, () => ctx.out.line(`${ctx.args.user} is now ${r.role} of ${ctx.args.team}.`));
  },
});

const removeMember = defineCommand({
  name: 'remove-member',
  summary: 'Remove a user from a team (team admins)',
  args: [
    { name: 'team', required: true, description: 'Team name or id.' },
    { name: 'user', required: true, description: 'User name or id.' },
  ],
  examples: ['svc teams remove-member payments alice'],
  async run(ctx) {
    const r = await ctx.api().delete<{ removed: string }>(`/api/v1/teams/${seg(ctx.args.team as string)}/members/${seg(ctx.args.user as string)}`);
    ctx.out.result(r, () => ctx.out.line(`Removed ${ctx.args.user} from ${ctx.args.team}.`));
  },
});

export const teamsGroup = defineGroup('teams', 'Manage teams, their members and limits', [create, list, limits, compression, members, addMember, removeMember]);
