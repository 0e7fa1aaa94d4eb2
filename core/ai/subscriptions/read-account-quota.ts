/**
 * Reads one subscription account's quota windows now (the poller every 5 minutes, and
 * `POST /api/v1/accounts/{id}/quota/refresh`): the plan's usage endpoint when its profile has one, else, or when
 * that endpoint answers 403, an error or an unexpected shape, the rate-limit headers proxy nodes saw in recent
 * responses. Never throws for a provider's answer: the reason lands in the read's `error` and the status row.
 */
import type { AppContext } from '../../context.ts';
import { isSvcError } from '../../errors.ts';
import { isSubscriptionProvider, subscriptionProfile } from '../provider-profiles.ts';
import { applyQuotaRead, type QuotaRead } from './apply-quota-read.ts';
import type { Forecast } from './forecast.ts';
import { readHeaderSnapshot } from './header-snapshots.ts';
import { describeAnswer, httpCall } from './outbound-http.ts';
import type { QuotaWindow } from './quota-window.ts';
import { tokenManagerOf } from './token-manager.ts';
import { parseUsageWindows } from './usage-windows.ts';

export interface QuotaAccount {
  id: string;
  provider: string;
  proxy_url: string | null;
}

async function fromUsageEndpoint(ctx: AppContext, a: QuotaAccount): Promise<{ windows: QuotaWindow[] } | { problem: string }> {
  if (!isSubscriptionProvider(a.provider)) return { problem: 'not a subscription provider' };
  const profile = subscriptionProfile(ctx.config.providerProfiles, a.provider);
  if (!profile.usage_url) return { problem: 'the plan has no usage endpoint' };
  let access: string;
  try {
    access = (await tokenManagerOf(ctx).get({ id: a.id, provider: a.provider, proxyUrl: a.proxy_url })).access;
  } catch (e) {
    return { problem: isSvcError(e) ? e.message : 'no access token' };
  }
  const answer = await httpCall(profile.usage_url, { headers: { ...profile.usage_headers, authorization: `Bearer ${access}` }, proxyUrl: a.proxy_url });
  if (answer.status !== 200) return { problem: `the usage endpoint answered ${describeAnswer(answer)}` };
  const parsed = parseUsageWindows(answer.json, profile.window_families);
  return parsed.ok ? { windows: parsed.windows } : { problem: parsed.problem };
}

export async function readAccountQuota(ctx: AppContext, a: QuotaAccount): Promise<{ read: QuotaRead; windows: Array<QuotaWindow & Forecast> }> {
  let read: QuotaRead;
  try {
    const u = await fromUsageEndpoint(ctx, a);
    if ('windows' in u) {
      read = { windows: u.windows, source: 'usage_endpoint', error: null };
    } else {
      const snap = await readHeaderSnapshot(ctx.counters, a.id, ctx.clock.now());
      const hasEndpoint = u.problem !== 'the plan has no usage endpoint';
      read = snap && snap.windows.length > 0
        ? { windows: snap.windows, source: 'headers', error: hasEndpoint ? u.problem : null }
        : { windows: [], source: null, error: hasEndpoint ? u.problem : 'no usage endpoint and no recent response headers to read the quota from' };
    }
  } catch (e) {
    ctx.log.warn({ err: e, account: a.id }, 'quota read failed');
    read = { windows: [], source: null, error: 'the quota could not be read (internal error, see the logs)' };
  }
  const windows = await applyQuotaRead(ctx, a.id, read);
  return { read, windows };
}

/** Reads every subscription account that is in rotation or paused (the 5-minute job); one failure never stops the rest. */
export async function readAllQuotas(ctx: AppContext): Promise<number> {
  const r = await ctx.db.query<QuotaAccount>(
    "SELECT id, provider, proxy_url FROM provider_accounts WHERE kind = 'subscription' AND state IN ('active', 'paused') ORDER BY id",
  );
  let n = 0;
  for (const a of r.rows) {
    try {
      await readAccountQuota(ctx, a);
      n++;
    } catch (err) {
      ctx.log.error({ err, account: a.id }, 'storing a quota read failed');
    }
  }
  return n;
}
