/**
 * Output schemas of the MCP tools: the shapes the REST API answers with (the view functions beside each feature).
 * Items are open objects (`looseObject`): the fields listed here are always present, and a later field added to a
 * view does not break a tool.
 */
import { z } from 'zod';
import { TIME } from './mcp-tools.ts';

const id = z.string();
const nullableString = z.string().nullable();
const count = z.number().int().min(0);
const limitValue = z.number().nullable();

export const TEAM_ITEM = z.looseObject({ id, name: z.string(), limits: z.record(z.string(), limitValue), created_at: TIME });
export const TOKEN_ITEM = z.looseObject({ id, user: id, name: z.string(), scope: z.enum(['read', 'deploy', 'write']), hint: z.string(), expires_at: TIME, revoked_at: TIME, last_used_at: TIME, created_at: TIME });
export const WEBHOOK_ITEM = z.looseObject({ id, team: id, url: z.string(), events: z.array(z.string()), created_at: TIME });
export const NOTIFICATION_ITEM = z.looseObject({ id, team: id, kind: z.string(), created_at: TIME });
export const SEARCH_ITEM = z.looseObject({ type: z.string(), id: z.union([z.string(), z.number()]), title: z.string(), url: z.string(), team: nullableString });
export const PROJECT_ITEM = z.looseObject({ id: z.number().int(), team: id, name: z.string(), slug: z.string(), platform: nullableString, dsn: nullableString, retention_days: z.number().int().nullable(), created_at: TIME });
export const ISSUE_ITEM = z.looseObject({
  id, project: z.number().int(), team: id, title: z.string(), culprit: nullableString, level: z.string(), state: z.string(),
  regressed: z.boolean(), count, people: count, first_seen: TIME, last_seen: TIME, last_event_id: nullableString, assignee: nullableString, url: z.string(),
});
export const STATS = z.looseObject({ totals: z.array(z.looseObject({})), series: z.array(z.looseObject({})) });

const KEY_LIMITS = z.looseObject({ requests_per_minute: z.number().optional(), requests_per_day: z.number().optional(), tokens_per_month: z.number().optional(), dollars_per_month: z.number().optional() });
export const KEY_ITEM = z.looseObject({
  id, name: z.string(), team: id, owner: nullableString, own: z.boolean(), hint: z.string(), models: z.array(z.string()),
  limits: KEY_LIMITS, log_bodies: z.enum(['off', '1d', '7d', '30d']), compression: nullableString, disabled: z.boolean(),
  created_at: TIME, updated_at: TIME, last_used_at: TIME, warnings: z.array(z.string()).optional(),
});
export const CREATED_KEY = KEY_ITEM.extend({ key: z.string().describe('The sk-svc- secret: shown this once, store it now.') });
export const REVOKED_KEY = KEY_ITEM.extend({ deleted_at: z.string() });

const NULLABLE_COUNT = count.nullable();
export const KEY_QUOTA = z.looseObject({
  key: z.looseObject({ id, name: z.string(), team: id }),
  month: z.string(),
  resets_at: TIME,
  limits: z.looseObject({ requests_per_minute: limitValue, requests_per_day: limitValue, tokens_per_month: limitValue, dollars_per_month: limitValue }),
  requests: z.looseObject({ last_minute: NULLABLE_COUNT, last_day: NULLABLE_COUNT }),
  spent: z.looseObject({ tokens: count, dollars: z.number() }),
  in_flight: z.looseObject({ tokens: count, dollars: z.number() }),
  remaining: z.looseObject({ tokens: limitValue, dollars: limitValue }),
});

const USAGE_METRICS = { calls: count, input_tokens: count, output_tokens: count, cache_read_tokens: count, cache_write_tokens: count, cost_usd: z.number(), errors: count };
export const USAGE = z.looseObject({
  from: TIME, to: TIME, days: z.number().int(), interval: z.enum(['day', 'hour']), group_by: z.array(z.string()), truncated: z.boolean(),
  totals: z.looseObject(USAGE_METRICS),
  groups: z.array(z.looseObject(USAGE_METRICS)),
  series: z.array(z.looseObject({ at: z.string(), ...USAGE_METRICS })),
});

export const COMPRESSION_REPORT = z.looseObject({
  days: z.number().int(), group_by: z.enum(['key', 'model', 'team']), estimated: z.boolean(),
  items: z.array(z.looseObject({
    group: z.string(), mode: z.enum(['on', 'audit-only']), calls: count, tokens_before: count, tokens_after: count, tokens_saved: z.number().int(),
    dollars_saved: z.number(), dollars_saved_uncached: z.number(), cache_breaks: count, tokens_rewritten: count,
    dollars_cache_rewrites: z.number(), dollars_saved_net: z.number().describe('dollars_saved less the cost of the cache breaks; negative when compression made the sessions dearer.'),
  })),
});

export const ACCOUNT_ITEM = z.looseObject({
  id, name: z.string(), provider: z.string(), kind: z.enum(['api_key', 'subscription']), base_url: nullableString, has_secret: z.boolean(),
  secret_hint: nullableString, models: z.array(z.string()), weight: z.number(), priority: z.number(),
  state: z.enum(['active', 'disabled', 'needs_sign_in', 'paused']), created_at: TIME, updated_at: TIME,
});
const QUOTA_WINDOW = z.looseObject({ name: z.string(), family: nullableString, used_fraction: z.number(), left_fraction: z.number(), resets_at: TIME, window_seconds: z.number().nullable(), read_at: TIME, source: z.string() });
export const ACCOUNT_DETAILS = ACCOUNT_ITEM.extend({
  quota: z.looseObject({ read_at: TIME, source: nullableString, error: nullableString, windows: z.array(QUOTA_WINDOW) }),
  pauses: z.array(z.looseObject({ family: nullableString, until: TIME, window: z.string(), reason: z.string() })),
  cooldown: z.looseObject({ until: TIME, reason: z.string() }).nullable(),
  sign_in: z.looseObject({}).nullable(),
});

export const ALIAS_ITEM = z.looseObject({ name: z.string(), models: z.array(z.string()), created_at: TIME, updated_at: TIME, warnings: z.array(z.string()).optional() });

const PER_MTOK = z.looseObject({ input_per_mtok: z.number(), output_per_mtok: z.number(), cache_read_per_mtok: z.number(), cache_write_per_mtok: z.number() });
export const PRICE_ITEM = z.looseObject({
  model: z.string(),
  list: PER_MTOK.nullable().describe('The list price kept with the service, USD per million tokens.'),
  override: PER_MTOK.extend({ updated_at: TIME }).nullable().describe("This instance's override."),
  effective: PER_MTOK.extend({ source: z.string(), matched: z.string() }).nullable().describe('What the gateway charges.'),
  warnings: z.array(z.string()).optional(),
});

export const CALL_ITEM = z.looseObject({
  id, key: nullableString, team: id, model: z.string(), served_model: nullableString, client_style: z.string(), stream: z.boolean(),
  status: z.number().int().nullable(), error_code: nullableString, truncated: z.boolean(), request_chars: count, response_chars: count,
  created_at: TIME, expires_at: TIME,
});
export const CALL_BODY = CALL_ITEM.extend({ request: z.unknown().describe('The request as received (JSON, or text when cut).'), response: z.unknown().describe('The answer as the client got it.') });

export const TRUST_RULE_ITEM = z.looseObject({
  id, team: id, name: z.string(), issuer: z.string(), audience: z.string(), conditions: z.record(z.string(), z.string()),
  scope: z.enum(['read', 'deploy']), ttl: z.number().int(), created_by: nullableString, disabled: z.boolean(), created_at: TIME,
});
export const TRUST_EXCHANGE_ITEM = z.looseObject({
  id, team: id, rule: id, issuer: z.string(), subject: z.string(), claims: z.record(z.string(), z.string()), token_id: id, expires_at: TIME, created_at: TIME,
});
