/**
 * The `usage-open-calls` job (the scheduler's leader, every SVC_OPEN_CALL_SWEEP_MS): streamed gateway calls whose
 * node stopped renewing their open row (migrations/…-usage-open-calls.sql; the node was killed, lost its disk or
 * cannot reach Postgres) become usage records from their reservation estimate, and their rows are deleted, in one
 * statement per batch.
 *
 * The record: the row's identity, its estimated input and output tokens and cost, usage_source `estimated`,
 * error_code `node_lost`, status 200 (what the client was sent: the head and part of the stream, then the
 * connection closed without the final event; a node lost before the first byte, while the upstream was being
 * asked, is recorded the same way), latency until the node's last renewal, no time to first byte.
 *
 * Idempotent: a row is deleted by the statement that records it, `FOR UPDATE SKIP LOCKED` keeps two runs from
 * taking the same row, and the record keeps the call's record_id, with the expiry its node would give it (the call's
 * time plus SVC_USAGE_RETENTION_DAYS; unique together): a call whose real record is already
 * stored is not recorded again. A real record that arrives later (its node was alive but cut off from Postgres)
 * replaces the estimate (proxy/metering/usage-writer.ts).
 */
import type { Db } from '../../core/db/db.ts';
import type { Job } from '../../core/scheduler.ts';

export const OPEN_CALLS_JOB = 'usage-open-calls';

/** Rows per statement: a few thousand calls of a lost node are recorded in a few short transactions. */
const BATCH = 1000;

const CLOSE_LOST = `WITH lost AS (
  DELETE FROM usage_open_calls WHERE record_id IN (
    SELECT record_id FROM usage_open_calls WHERE lease_until < now() ORDER BY lease_until LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING *
), recorded AS (
  INSERT INTO usage_records (record_id, at, key_id, team_id, model, served_model, alias, provider, account_id, client_style,
    upstream_style, status, error_code, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
    usage_source, latency_ms, ttfb_ms, cost_usd, stream, expires_at)
  SELECT record_id, at, key_id, team_id, model, served_model, alias, provider, account_id, client_style,
    upstream_style, 200, 'node_lost', input_tokens, output_tokens, 0, 0, NULL,
    'estimated', least(greatest(0, round(extract(epoch FROM renewed_at - at) * 1000)), 2147483647)::int, NULL, cost_usd, stream,
    at + make_interval(secs => $2 * 86400)
  FROM lost
  WHERE NOT EXISTS (SELECT 1 FROM usage_records u WHERE u.record_id = lost.record_id)
  ON CONFLICT (record_id, expires_at) DO NOTHING
  RETURNING cost_usd
)
SELECT (SELECT count(*) FROM lost)::int AS closed, count(*)::int AS recorded, coalesce(sum(cost_usd), 0)::float8 AS cost_usd FROM recorded`;

export interface LostCalls {
  /** Open rows whose lease ran out, deleted. */
  closed: number;
  /** Usage records written for them (the others already had theirs). */
  recorded: number;
  costUsd: number;
}

/** Records and deletes every open call whose lease ran out. */
export async function closeLostCalls(db: Db, retentionDays: number): Promise<LostCalls> {
  const total: LostCalls = { closed: 0, recorded: 0, costUsd: 0 };
  for (;;) {
    const r = await db.query<{ closed: number; recorded: number; cost_usd: number }>(CLOSE_LOST, [BATCH, retentionDays]);
    const row = r.rows[0];
    total.closed += row.closed;
    total.recorded += row.recorded;
    total.costUsd += row.cost_usd;
    if (row.closed < BATCH) return total;
  }
}

export function lostCallsJob(everyMs: number): Job {
  return {
    name: OPEN_CALLS_JOB,
    everyMs,
    run: async (ctx) => {
      const r = await closeLostCalls(ctx.db, ctx.config.usageRetentionDays);
      if (r.closed > 0) ctx.log.warn({ ...r }, 'streamed calls of a lost node recorded from their reservation estimate');
    },
  };
}
