/** Response schemas of GET /api/v1/usage (usage-routes.ts) and GET /api/v1/quota (key-quota.ts). */
import { KEY_LIMIT_NAMES } from '../../core/ai/key-limits.ts';
import { INTEGER_OR_NULL, NUMBER_OR_NULL, object, STRING_OR_NULL, STRINGS, TIME } from '../../core/http/response-schema.ts';

const METRICS = {
  calls: { type: 'integer' },
  input_tokens: { type: 'integer' },
  output_tokens: { type: 'integer' },
  cache_read_tokens: { type: 'integer' },
  cache_write_tokens: { type: 'integer' },
  cost_usd: { type: 'number', description: 'USD, rounded to 6 decimals.' },
  errors: { type: 'integer' },
};
const LATENCY = object({ p50: INTEGER_OR_NULL, p95: INTEGER_OR_NULL }, [], { description: 'Milliseconds.' });
const SAVINGS = object({
  calls: { type: 'integer', description: 'Calls that went through the compressor in this mode.' },
  tokens_before: { type: 'integer', description: 'Estimated input tokens of the conversations as the clients sent them.' },
  tokens_after: { type: 'integer', description: 'Estimated input tokens after compression (what was, or would have been, sent upstream).' },
  tokens_saved: { type: 'integer' },
  dollars_saved: { type: 'number', description: "USD: the saved tokens at the model's cache-read price (the floor)." },
  dollars_saved_uncached: { type: 'number', description: 'USD: the saved tokens as fresh input (the ceiling).' },
});
const COMPRESSION = object({
  on: { ...SAVINGS, description: "Calls compressed in `on`: the usage records' estimated input tokens before and after compression." },
  audit_only: { ...SAVINGS, description: 'Calls in `audit-only`: what `on` would have saved, computed after each answer (compression_records).' },
}, [], { description: 'What compression saved (on) and would have saved (audit-only); token counts are estimates (characters / 4).' });

/** One group: the grouped fields (those named in group_by, ids with their names) and the metrics. */
const GROUP = object({
  model: STRING_OR_NULL,
  key: STRING_OR_NULL,
  key_name: STRING_OR_NULL,
  account: STRING_OR_NULL,
  account_name: STRING_OR_NULL,
  team: STRING_OR_NULL,
  team_name: STRING_OR_NULL,
  ...METRICS,
  latency_ms: LATENCY,
  compression: COMPRESSION,
}, ['model', 'key', 'key_name', 'account', 'account_name', 'team', 'team_name']);

export const USAGE_REPORT = object({
  from: TIME,
  to: TIME,
  days: { type: 'integer' },
  interval: { type: 'string', enum: ['day', 'hour'] },
  group_by: { ...STRINGS, items: { type: 'string', enum: ['model', 'key', 'account', 'team'] } },
  groups: { type: 'array', items: GROUP },
  truncated: { type: 'boolean', description: 'More groups exist than were answered.' },
  totals: object({ ...METRICS, latency_ms: LATENCY, compression: COMPRESSION }),
  series: { type: 'array', items: object({ at: TIME, ...METRICS }) },
});

/** What a gateway key has left this month; null = no limit (or not counted). */
export const KEY_QUOTA = object({
  key: object({ id: { type: 'string' }, name: { type: 'string' }, team: { type: 'string' } }),
  month: { type: 'string', description: 'YYYY-MM (UTC).' },
  resets_at: TIME,
  limits: object(Object.fromEntries(KEY_LIMIT_NAMES.map((n) => [n, NUMBER_OR_NULL]))),
  requests: object({ last_minute: INTEGER_OR_NULL, last_day: INTEGER_OR_NULL }),
  spent: object({ tokens: { type: 'integer' }, dollars: { type: 'number' } }),
  in_flight: object({ tokens: { type: 'integer' }, dollars: { type: 'number' } }),
  remaining: object({ tokens: NUMBER_OR_NULL, dollars: NUMBER_OR_NULL, requests_per_minute: NUMBER_OR_NULL, requests_per_day: NUMBER_OR_NULL }),
  team: object({ tokens_per_month: NUMBER_OR_NULL, spent_tokens: { type: 'integer' }, remaining_tokens: NUMBER_OR_NULL }),
  counters: { type: 'string', description: 'ok, or why the shared counters could not be read.' },
});
