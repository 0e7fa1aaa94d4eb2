/**
 * What GET /api/v1/accounts/{id} adds for the subscription-accounts feature: the quota windows with their forecast,
 * the pauses, the cooldown (from the shared counters), the sign-in (email, plan, token expiry, refresh trouble;
 * never a token) and the last state changes. API-key accounts get the same keys, mostly empty.
 */
import type { AppContext } from '../../../core/context.ts';
import { rfc3339 } from '../../../core/clock.ts';
import { readCooldown } from '../../../core/ai/subscriptions/cooldown-board.ts';

interface WindowRow {
  name: string;
  family: string | null;
  used_fraction: number;
  resets_at: Date | null;
  window_seconds: number | null;
  read_at: Date;
  source: string;
  forecast_fraction: number | null;
  rate_per_hour: number | null;
}

const pct = (x: number) => Math.round(x * 10_000) / 10_000;

export async function accountDetails(ctx: AppContext, accountId: string): Promise<Record<string, unknown>> {
  const [windows, status, pauses, tokens, changes, cooldown] = await Promise.all([
    ctx.db.query<WindowRow>('SELECT * FROM account_quota_windows WHERE account_id = $1 ORDER BY name', [accountId]),
    ctx.db.query<{ read_at: Date; source: string | null; error: string | null }>('SELECT read_at, source, error FROM account_quota_status WHERE account_id = $1', [accountId]),
    ctx.db.query<{ family: string; until: Date; window_name: string; reason: string }>('SELECT family, until, window_name, reason FROM account_pauses WHERE account_id = $1 ORDER BY family', [accountId]),
    ctx.db.query<{ meta: Record<string, unknown>; expires_at: Date; refreshed_at: Date | null; refresh_failures: number; next_refresh_at: Date | null; last_refresh_error: string | null }>(
      'SELECT meta, expires_at, refreshed_at, refresh_failures, next_refresh_at, last_refresh_error FROM account_oauth_tokens WHERE account_id = $1', [accountId]),
    ctx.db.query<{ from_state: string; to_state: string; family: string | null; reason: string; details: unknown; at: Date }>(
      'SELECT from_state, to_state, family, reason, details, at FROM account_state_changes WHERE account_id = $1 ORDER BY id DESC LIMIT 10', [accountId]),
    readCooldown(ctx.counters, accountId, ctx.clock.now()).catch(() => undefined),
  ]);
  const s = status.rows[0];
  const t = tokens.rows[0];
  return {
    quota: {
      read_at: rfc3339(s?.read_at),
      source: s?.source ?? null,
      error: s?.error ?? null,
      windows: windows.rows.map((w) => ({
        name: w.name,
        family: w.family,
        used_fraction: pct(w.used_fraction),
        left_fraction: pct(Math.max(0, 1 - w.used_fraction)),
        resets_at: rfc3339(w.resets_at),
        window_seconds: w.window_seconds,
        read_at: rfc3339(w.read_at),
        source: w.source,
        forecast_fraction: w.forecast_fraction,
        rate_per_hour: w.rate_per_hour,
      })),
    },
    pauses: pauses.rows.map((p) => ({ family: p.family === '' ? null : p.family, until: rfc3339(p.until), window: p.window_name, reason: p.reason })),
    cooldown: cooldown ? { until: rfc3339(cooldown.until), reason: cooldown.reason } : null,
    sign_in: t ? {
      email: typeof t.meta.email === 'string' ? t.meta.email : null,
      plan: typeof t.meta.plan === 'string' ? t.meta.plan : null,
      project_id: typeof t.meta.project_id === 'string' ? t.meta.project_id : null,
      token_expires_at: rfc3339(t.expires_at),
      refreshed_at: rfc3339(t.refreshed_at),
      refresh_failures: t.refresh_failures,
      next_refresh_at: rfc3339(t.next_refresh_at),
      last_refresh_error: t.last_refresh_error,
    } : null,
    state_changes: changes.rows.map((c) => ({ from: c.from_state, to: c.to_state, family: c.family, reason: c.reason, details: c.details, at: rfc3339(c.at) })),
  };
}
