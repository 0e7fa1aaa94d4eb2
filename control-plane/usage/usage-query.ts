/**
 * Usage analytics over usage_records (GET /api/v1/usage): per group (any of model, key, account, team) the calls,
 * tokens (input, output, cache read, cache write), cost, error count and p50/p95 latency, plus totals and a time
 * series by day or hour (UTC buckets, empty buckets filled with zeros). Costs are the recorded ones: the list
 * price, or the instance's override, in force when the call was made. "model" is the model that answered (the one
 * asked for when no upstream answered). An error is a call answered with status >= 400 or one whose stream ended
 * in an error.
 */
import type { Queryable } from '../../core/db/db.ts';

export const GROUPS = ['model', 'key', 'account', 'team'] as const;
export type Group = (typeof GROUPS)[number];

const GROUP_SQL: Record<Group, string> = {
  model: 'coalesce(u.served_model, u.model)',
  key: 'u.key_id',
  account: 'u.account_id',
  team: 'u.team_id',
};

const METRICS = `count(*)::int AS calls,
  coalesce(sum(u.input_tokens), 0)::float8 AS input_tokens,
  coalesce(sum(u.output_tokens), 0)::float8 AS output_tokens,
  coalesce(sum(u.cache_read_tokens), 0)::float8 AS cache_read_tokens,
  coalesce(sum(u.cache_write_tokens), 0)::float8 AS cache_write_tokens,
  coalesce(sum(u.cost_usd), 0)::float8 AS cost_usd,
  (count(*) FILTER (WHERE u.status >= 400 OR u.error_code IS NOT NULL))::int AS errors`;

const LATENCY = `percentile_cont(0.5) WITHIN GROUP (ORDER BY u.latency_ms)::float8 AS p50,
  percentile_cont(0.95) WITHIN GROUP (ORDER BY u.latency_ms)::float8 AS p95`;

export interface UsageFilter {
  from: Date;
  to: Date;
  /** null = every team (superusers); else the teams the caller may read. */
  teams: string[] | null;
  /** Teams where the caller may see other members' own keys (admins); ignored when teams is null. */
  adminTeams: string[];
  userId: string | null;
  teamId?: string;
  keyId?: string;
}

interface MetricRow {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  errors: number;
}

export interface GroupRow extends MetricRow {
  g0?: string | null;
  g1?: string | null;
  g2?: string | null;
  g3?: string | null;
  p50: number | null;
  p95: number | null;
}

export interface SeriesRow extends MetricRow {
  bucket_ms: number;
}

/** WHERE clause (params appended): time range, visibility (own keys of others only for team admins), filters. */
function where(f: UsageFilter, params: unknown[]): string {
  const w = [`u.at >= $${params.push(f.from)}`, `u.at < $${params.push(f.to)}`];
  if (f.teams) {
    w.push(`u.team_id = ANY($${params.push(f.teams)})`);
    w.push(`(u.team_id = ANY($${params.push(f.adminTeams)}) OR NOT EXISTS (SELECT 1 FROM gateway_keys gk WHERE gk.id = u.key_id AND gk.owner_user_id IS NOT NULL AND gk.owner_user_id <> $${params.push(f.userId ?? '')}))`);
  }
  if (f.teamId) w.push(`u.team_id = $${params.push(f.teamId)}`);
  if (f.keyId) w.push(`u.key_id = $${params.push(f.keyId)}`);
  return w.join(' AND ');
}

export async function queryGroups(db: Queryable, f: UsageFilter, groups: readonly Group[], maxGroups: number): Promise<GroupRow[]> {
  const params: unknown[] = [];
  const cols = groups.map((g, i) => `${GROUP_SQL[g]} AS g${i}`);
  const by = groups.map((_, i) => `g${i}`);
  const r = await db.query<GroupRow>(
    `SELECT ${[...cols, METRICS, LATENCY].join(', ')} FROM usage_records u WHERE ${where(f, params)}
     ${by.length ? `GROUP BY ${by.join(', ')}` : ''} ORDER BY cost_usd DESC, calls DESC${by.length ? `, ${by.join(', ')}` : ''} LIMIT ${maxGroups + 1}`,
    params,
  );
  return r.rows;
}

export async function querySeries(db: Queryable, f: UsageFilter, interval: 'day' | 'hour'): Promise<SeriesRow[]> {
  const params: unknown[] = [];
  const r = await db.query<SeriesRow>(
    `SELECT (extract(epoch FROM date_trunc('${interval}', u.at, 'UTC')) * 1000)::float8 AS bucket_ms, ${METRICS}
       FROM usage_records u WHERE ${where(f, params)} GROUP BY 1 ORDER BY 1`,
    params,
  );
  return r.rows;
}

/** Display names of the ids in the groups (keys, accounts, teams), one query per kind present. */
export async function namesOf(db: Queryable, kind: 'key' | 'account' | 'team', ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const table = kind === 'key' ? 'gateway_keys' : kind === 'account' ? 'provider_accounts' : 'teams';
  const r = await db.query<{ id: string; name: string }>(`SELECT id, name FROM ${table} WHERE id = ANY($1)`, [ids]);
  return new Map(r.rows.map((x) => [x.id, x.name]));
}
