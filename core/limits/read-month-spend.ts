/**
 * What a key and a team spent in a calendar month (UTC) according to usage_records, the source of truth. The limit
 * store is seeded from it (LimitStore.seed) and GET /api/v1/quota reads it. Tokens of a call = input + output +
 * cache read + cache write (every token the upstream processed); dollars = the recorded cost.
 */
import type { Queryable } from '../db/db.ts';
import type { Amount } from './limit-store.ts';

const TOKENS = 'input_tokens + output_tokens + cache_read_tokens + cache_write_tokens';

/** [start, end) of a `YYYY-MM` month in UTC. */
export function monthRange(month: string): [Date, Date] {
  const [y, m] = month.split('-').map(Number);
  return [new Date(Date.UTC(y, m - 1, 1)), new Date(Date.UTC(y, m, 1))];
}

export async function readKeyMonthSpend(db: Queryable, keyId: string, month: string): Promise<Amount> {
  const [from, to] = monthRange(month);
  const r = await db.query<{ tokens: number | null; dollars: number | null }>(
    `SELECT sum(${TOKENS})::float8 AS tokens, sum(cost_usd)::float8 AS dollars FROM usage_records WHERE key_id = $1 AND at >= $2 AND at < $3`,
    [keyId, from, to],
  );
  return { tokens: r.rows[0]?.tokens ?? 0, dollars: r.rows[0]?.dollars ?? 0 };
}

export async function readTeamMonthTokens(db: Queryable, teamId: string, month: string): Promise<number> {
  const [from, to] = monthRange(month);
  const r = await db.query<{ tokens: number | null }>(
    `SELECT sum(${TOKENS})::float8 AS tokens FROM usage_records WHERE team_id = $1 AND at >= $2 AND at < $3`,
    [teamId, from, to],
  );
  return r.rows[0]?.tokens ?? 0;
}
