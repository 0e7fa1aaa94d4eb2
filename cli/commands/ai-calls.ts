/** svc ai calls list | show: gateway calls whose bodies were kept (keys with --log-bodies; /api/v1/calls). */
import { seg } from '../api-client.ts';
import { defineCommand, defineGroup } from '../command.ts';
import type { Column } from '../output.ts';
import { LIMIT_OPTION, maxItems } from './limit-option.ts';

interface Call {
  id: string;
  key: string | null;
  team: string;
  model: string;
  served_model: string | null;
  client_style: string;
  stream: boolean;
  status: number | null;
  error_code: string | null;
  truncated: boolean;
  request_chars: number;
  response_chars: number;
  created_at: string;
  expires_at: string;
  request?: unknown;
  response?: unknown;
}

const COLUMNS: Column<Call>[] = [
  { title: 'id', value: (c) => c.id },
  { title: 'when', value: (c) => c.created_at },
  { title: 'key', value: (c) => c.key },
  { title: 'model', value: (c) => (c.served_model && c.served_model !== c.model ? `${c.model} → ${c.served_model}` : c.model) },
  { title: 'status', value: (c) => (c.error_code ? `${c.status ?? '-'} ${c.error_code}` : c.status) },
  { title: 'stream', value: (c) => c.stream },
  { title: 'chars in/out', value: (c) => `${c.request_chars}/${c.response_chars}${c.truncated ? ' (cut)' : ''}` },
  { title: 'kept until', value: (c) => c.expires_at },
];

const list = defineCommand({
  name: 'list',
  summary: 'List kept calls, newest first (not their bodies)',
  options: {
    key: { type: 'string', value: 'KEY_ID', description: 'Only calls of this gateway key.' },
    team: { type: 'string', value: 'TEAM', description: 'Only calls of this team (name or id).' },
    limit: LIMIT_OPTION('calls'),
  },
  examples: ['svc ai calls list', 'svc ai calls list --key key_3f2a9c0d1e4b5a67 --limit 10'],
  async run(ctx) {
    const max = maxItems(ctx.opts.limit, 'svc ai calls list');
    const items = await ctx.api().listAll<Call>('/api/v1/calls', { key: ctx.opts.key, team: ctx.opts.team }, max);
    ctx.out.result({ items, next_cursor: null }, () => ctx.out.table(items, COLUMNS, 'No kept calls. A key keeps its call bodies with "svc ai keys update KEY --log-bodies 7d".'));
  },
});

const body = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

const show = defineCommand({
  name: 'show',
  summary: 'Show one kept call with its request and answer',
  args: [{ name: 'id', required: true, description: 'The call id (from svc ai calls list).' }],
  examples: ['svc ai calls show call_3f2a9c0d1e4b5a67'],
  async run(ctx) {
    const c = await ctx.api().get<Call>(`/api/v1/calls/${seg(ctx.args.id as string)}`);
    ctx.out.result(c, () => {
      ctx.out.fields([
        ['id', c.id], ['when', c.created_at], ['key', c.key], ['team', c.team], ['model', c.model], ['served by', c.served_model],
        ['client style', c.client_style], ['stream', c.stream], ['status', c.status], ['error', c.error_code], ['cut short', c.truncated], ['kept until', c.expires_at],
      ]);
      ctx.out.line('\nRequest:');
      ctx.out.line(body(c.request));
      ctx.out.line('\nAnswer:');
      ctx.out.line(body(c.response));
    });
  },
});

export const callsGroup = defineGroup('calls', 'Kept call bodies (keys with --log-bodies)', [list, show]);
