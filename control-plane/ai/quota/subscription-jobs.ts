/**
 * Background jobs of subscription accounts (run on the scheduler leader, control-plane role):
 * - accounts.quota (every 5 min): reads every active or paused subscription account's quota windows.
 * - accounts.resume (every 30 s): ends pauses whose window has reset, so accounts resume by themselves.
 * - accounts.tokens (every minute): refreshes tokens that expire soon, so that an idle account's sign-in stays alive
 *   and calls rarely wait for a refresh; outages back off as the token manager decides.
 */
import type { AppContext } from '../../../core/context.ts';
import type { Job } from '../../../core/scheduler.ts';
import { isSubscriptionProvider, subscriptionProfile } from '../../../core/ai/provider-profiles.ts';
import { resumeDuePauses } from '../../../core/ai/subscriptions/pauses.ts';
import { readAllQuotas } from '../../../core/ai/subscriptions/read-account-quota.ts';
import { tokenManagerOf } from '../../../core/ai/subscriptions/token-manager.ts';

export const QUOTA_JOB = 'accounts.quota';
export const RESUME_JOB = 'accounts.resume';
export const TOKENS_JOB = 'accounts.tokens';

/** Tokens this close to their refresh time are refreshed by the job rather than by the next call. */
const AHEAD_MS = 120_000;

export async function refreshExpiringTokens(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const r = await ctx.db.query<{ id: string; provider: string; proxy_url: string | null; expires_at: Date; next_refresh_at: Date | null }>(
    `SELECT a.id, a.provider, a.proxy_url, t.expires_at, t.next_refresh_at FROM provider_accounts a JOIN account_oauth_tokens t ON t.account_id = a.id
     WHERE a.kind = 'subscription' AND a.state IN ('active', 'paused')`,
  );
  let n = 0;
  for (const a of r.rows) {
    if (!isSubscriptionProvider(a.provider)) continue;
    const lead = subscriptionProfile(ctx.config.providerProfiles, a.provider).refresh_lead_seconds * 1000;
    if (a.expires_at.getTime() - lead - AHEAD_MS > now) continue;
    if (a.next_refresh_at && a.next_refresh_at.getTime() > now) continue;
    try {
      await tokenManagerOf(ctx).get({ id: a.id, provider: a.provider, proxyUrl: a.proxy_url });
      n++;
    } catch (err) {
      ctx.log.warn({ account: a.id, err: (err as Error).message }, 'token refresh job: account not refreshed');
    }
  }
  return n;
}

export function subscriptionJobs(): Job[] {
  return [
    { name: QUOTA_JOB, everyMs: 5 * 60_000, run: async (ctx) => void (await readAllQuotas(ctx)) },
    { name: RESUME_JOB, everyMs: 30_000, run: async (ctx) => void (await resumeDuePauses(ctx)) },
    { name: TOKENS_JOB, everyMs: 60_000, run: async (ctx) => void (await refreshExpiringTokens(ctx)) },
  ];
}
