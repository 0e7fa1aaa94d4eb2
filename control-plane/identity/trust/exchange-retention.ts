/**
 * Retention of recorded token exchanges, a scheduler job (leader node only, every hour). An exchange is kept for
 * EXCHANGE_KEPT_DAYS (90) after it was made, and beyond that for as long as the job token it consumed has not
 * expired: the row is what refuses that token's jti a second time, so it goes only once the token itself would be
 * refused (an exchange recorded before its token's expiry was stored, job_expires_at null, goes after the 90 days).
 * Deleted trust rules go too, once 90 days have passed and no recorded exchange names them. Rows go in batches
 * (core/db/delete-in-batches.ts); times come from ctx.clock, so tests move a ManualClock instead of waiting.
 */
import type { AppContext } from '../../../core/context.ts';
import { deleteInBatches } from '../../../core/db/delete-in-batches.ts';
import type { Job } from '../../../core/scheduler.ts';

export const EXCHANGE_RETENTION_JOB = 'identity.exchanges_retention';
export const EXCHANGE_KEPT_DAYS = 90;
const EVERY_MS = 60 * 60_000;
const BATCH = 5000;
const DAY_MS = 86_400_000;

const DELETE_EXCHANGES = `
DELETE FROM trust_exchanges WHERE id = ANY(ARRAY(
  SELECT id FROM trust_exchanges WHERE created_at < $1 AND (job_expires_at IS NULL OR job_expires_at < $2) LIMIT $3))`;

const DELETE_RULES = `
DELETE FROM trust_rules WHERE id = ANY(ARRAY(
  SELECT r.id FROM trust_rules r WHERE r.deleted_at < $1 AND NOT EXISTS (SELECT 1 FROM trust_exchanges x WHERE x.rule_id = r.id) LIMIT $2))`;

export interface ExchangeRetentionResult {
  exchanges: number;
  rules: number;
}

export function exchangeRetentionJob(batch = BATCH): Job {
  return {
    name: EXCHANGE_RETENTION_JOB,
    everyMs: EVERY_MS,
    run: async (ctx) => {
      const r = await runExchangeRetention(ctx, batch);
      if (r.exchanges || r.rules) ctx.log.info({ exchanges: r.exchanges, rules: r.rules }, 'token exchange retention deleted old rows');
    },
  };
}

export async function runExchangeRetention(ctx: AppContext, batch = BATCH): Promise<ExchangeRetentionResult> {
  const now = ctx.clock.now();
  const cutoff = new Date(now - EXCHANGE_KEPT_DAYS * DAY_MS);
  const exchanges = await deleteInBatches(() => ctx.db.query(DELETE_EXCHANGES, [cutoff, new Date(now), batch]), batch);
  const rules = await deleteInBatches(() => ctx.db.query(DELETE_RULES, [cutoff, batch]), batch);
  return { exchanges, rules };
}
