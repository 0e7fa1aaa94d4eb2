/**
 * Stores one quota read of an account and acts on it: windows upserted with their forecast (windows the read no
 * longer reports are dropped), a sample kept for the next forecast (a day of samples), the read's status (source and
 * the reason the usage endpoint was not used), then pauses: a window with under 2 % left pauses the account (or its
 * model family) until it resets; a paused window read again with room left ends its pause early.
 */
import type { AppContext } from '../../context.ts';
import { forecastWindow, type Forecast, type QuotaSample } from './forecast.ts';
import { endPause, pauseAccount, readPauses } from './pauses.ts';
import { PAUSE_AT_USED, type QuotaWindow } from './quota-window.ts';
import { ACCOUNT_QUOTA_CACHE } from './subscription-caches.ts';

export interface QuotaRead {
  windows: QuotaWindow[];
  source: 'usage_endpoint' | 'headers' | null;
  /** Why the usage endpoint was not used, or why nothing is known. */
  error: string | null;
}

/** A pause without a known reset is re-checked at the next read (the poller runs every 5 minutes). */
const UNKNOWN_RESET_PAUSE_MS = 5 * 60_000;
const SAMPLE_KEEP_MS = 86_400_000;

export async function applyQuotaRead(ctx: AppContext, accountId: string, read: QuotaRead): Promise<Array<QuotaWindow & Forecast>> {
  const now = ctx.clock.now();
  const out: Array<QuotaWindow & Forecast> = [];
  await ctx.db.tx(async (q) => {
    if (read.source !== null) {
      const names = read.windows.map((w) => w.name);
      await q.query('DELETE FROM account_quota_windows WHERE account_id = $1 AND NOT (name = ANY($2))', [accountId, names]);
    }
    for (const w of read.windows) {
      const s = await q.query<{ used_fraction: number; resets_at: Date | null; at: Date }>(
        'SELECT used_fraction, resets_at, at FROM account_quota_samples WHERE account_id = $1 AND name = $2 AND at >= $3 ORDER BY at',
        [accountId, w.name, new Date(now - SAMPLE_KEEP_MS)],
      );
      const samples: QuotaSample[] = s.rows.map((r) => ({ used: r.used_fraction, resetsAt: r.resets_at?.getTime() ?? null, at: r.at.getTime() }));
      const f = forecastWindow(w, samples, now);
      out.push({ ...w, ...f });
      await q.query(
        `INSERT INTO account_quota_windows (account_id, name, family, used_fraction, resets_at, window_seconds, read_at, source, forecast_fraction, rate_per_hour)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (account_id, name) DO UPDATE SET family = EXCLUDED.family, used_fraction = EXCLUDED.used_fraction,
           resets_at = EXCLUDED.resets_at, window_seconds = EXCLUDED.window_seconds, read_at = EXCLUDED.read_at,
           source = EXCLUDED.source, forecast_fraction = EXCLUDED.forecast_fraction, rate_per_hour = EXCLUDED.rate_per_hour`,
        [accountId, w.name, w.family, w.used, w.resetsAt === null ? null : new Date(w.resetsAt), w.windowSeconds, new Date(now), read.source ?? 'headers', f.atReset, f.ratePerHour],
      );
      await q.query('INSERT INTO account_quota_samples (account_id, name, used_fraction, resets_at, at) VALUES ($1, $2, $3, $4, $5)',
        [accountId, w.name, w.used, w.resetsAt === null ? null : new Date(w.resetsAt), new Date(now)]);
    }
    await q.query('DELETE FROM account_quota_samples WHERE account_id = $1 AND at < $2', [accountId, new Date(now - SAMPLE_KEEP_MS)]);
    await q.query(
      `INSERT INTO account_quota_status (account_id, read_at, source, error) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id) DO UPDATE SET read_at = EXCLUDED.read_at, source = EXCLUDED.source, error = EXCLUDED.error`,
      [accountId, new Date(now), read.source, read.error],
    );
  });
  await ctx.caches.invalidate(ACCOUNT_QUOTA_CACHE);
  await actOnWindows(ctx, accountId, read.windows, now);
  return out;
}

async function actOnWindows(ctx: AppContext, accountId: string, windows: QuotaWindow[], now: number): Promise<void> {
  const pauses = await readPauses(ctx.db, accountId);
  for (const w of windows) {
    const family = w.family ?? '';
    const low = w.used >= PAUSE_AT_USED && (w.resetsAt === null || w.resetsAt > now);
    if (low) {
      await pauseAccount(ctx, { accountId, family, until: w.resetsAt ?? now + UNKNOWN_RESET_PAUSE_MS, windowName: w.name, used: w.used });
      continue;
    }
    const p = pauses.find((x) => x.family === family && x.windowName === w.name);
    // Another window of the same family may still be spent: end the pause only when none is.
    const stillLow = windows.some((o) => (o.family ?? '') === family && o.used >= PAUSE_AT_USED && (o.resetsAt === null || o.resetsAt > now));
    if (p && !stillLow) await endPause(ctx, accountId, family, 'quota_available');
  }
}
