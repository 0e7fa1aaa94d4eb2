/**
 * Random usage records written by Postgres itself (INSERT … SELECT over generate_series), fast enough for ten
 * million rows: teams × keys per team, models (the answering one missing on 5 % of calls), accounts per model (none
 * on 10 %), about 4 % errors (500s and streams ended in error), log-uniform latencies from 1 ms to a minute, costs
 * with every digit of a double, compression on about 30 % of calls in `on` (with tokens before and after) and 10 % in
 * `audit-only`. Inserted in time order, as a live table receives them (the rows of an hour end up
 * together, not spread over the whole table), each expiring 90 days after its time (the default retention) in the
 * day partition createUsagePartitions made for it.
 */
import type { Db, Queryable } from '../../core/db/db.ts';
import { createDayPartition, dayOf, DAY_MS } from '../../core/db/partitions.ts';

const RETENTION_DAYS = 90;

/** The day partitions of usage records with times in [from, to), as the partitions job makes them ahead. */
export async function createUsagePartitions(db: Db, from: number, to: number): Promise<void> {
  for (let day = dayOf(from + RETENTION_DAYS * DAY_MS); day < to + RETENTION_DAYS * DAY_MS; day += DAY_MS) {
    await createDayPartition(db, 'usage_records', day);
  }
}

export interface UsageShape {
  teams: number;
  keysPerTeam: number;
  models: number;
  accounts: number;
}

export const DEFAULT_SHAPE: UsageShape = { teams: 10, keysPerTeam: 10, models: 8, accounts: 6 };

/** Inserts n records with times uniformly in [from, to), in one statement. */
export async function generateUsageRecords(q: Queryable, n: number, from: number, to: number, shape: UsageShape = DEFAULT_SHAPE): Promise<void> {
  await q.query(
    `INSERT INTO usage_records (at, key_id, team_id, model, served_model, account_id, client_style, status, error_code,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage_source, latency_ms, cost_usd,
       compression_mode, compression_tokens_before, compression_tokens_after, expires_at)
     SELECT to_timestamp(($2::float8 + r.a * ($3::float8 - $2::float8)) / 1000), 'key_' || r.t || '_' || r.k, 'team_' || r.t,
            'model_' || r.m, CASE WHEN r.e < 0.05 THEN NULL ELSE 'model_' || r.m END,
            CASE WHEN r.c < 0.1 THEN NULL ELSE 'acc_' || (r.m + floor(r.c * 2)::int) % $7 END, 'chat',
            CASE WHEN r.e < 0.02 THEN 500 ELSE 200 END, CASE WHEN r.e < 0.02 THEN 'upstream_server' WHEN r.e > 0.98 THEN 'stream_error' END,
            floor(r.c * 4000)::int, floor(r.e * 900)::int, floor(r.a * 300)::int, floor(r.m * 7)::int, 'reported',
            floor(exp(r.l * ln(60000)))::int, r.e * 0.05,
            CASE WHEN r.l < 0.3 THEN 'on' WHEN r.l >= 0.9 THEN 'audit-only' END,
            CASE WHEN r.l < 0.3 THEN 16000 + floor(r.c * 90000)::int END, CASE WHEN r.l < 0.3 THEN 16000 + floor(r.c * r.e * 90000)::int END,
            to_timestamp(($2::float8 + r.a * ($3::float8 - $2::float8)) / 1000) + make_interval(secs => $8 * 86400)
       FROM (SELECT random() AS a, floor(random() * $4)::int AS t, floor(random() * $5)::int AS k, floor(random() * $6)::int AS m,
                    random() AS e, random() AS c, random() AS l, i
               FROM generate_series(1, $1::int) AS i OFFSET 0) r
      ORDER BY r.a`,
    [n, from, to, shape.teams, shape.keysPerTeam, shape.models, shape.accounts, RETENTION_DAYS],
  );
}
