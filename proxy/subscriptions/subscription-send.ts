/**
 * How a call goes through a subscription account: take the account's access token (refreshed ahead of expiry by the
 * token manager), let the plan's adapter shape the request, send it through the account's dispatcher (its pool or
 * outbound proxy), and let the adapter shape a successful answer.
 *
 * An upstream 401 gets one refresh (single-flight across nodes; a token another node already refreshed is simply
 * re-read) and one retry. A second 401 or a 403 on the retry means the sign-in is dead: the account is marked
 * `needs_sign_in` (out of rotation everywhere, recorded and announced) and the call moves on to the next account
 * (a catalogue error, which the attempt loop treats like an unreachable upstream). Token failures (refresh refused,
 * provider unreachable with an expired token) end the same way.
 */
import type { Dispatcher } from 'undici';
import type { AppContext } from '../../core/context.ts';
import { svcError } from '../../core/errors.ts';
import type { SubscriptionProfile, SubscriptionProvider } from '../../core/ai/provider-profiles.ts';
import { changeAccountState } from '../../core/ai/subscriptions/account-state.ts';
import type { AccessToken, TokenManager } from '../../core/ai/subscriptions/token-manager.ts';
import { upstreamFailure, type UpstreamRequest } from '../upstream/send-upstream.ts';
import type { PlanAdapter } from './plan-adapter.ts';
import { readAll } from './replace-body.ts';

export interface SubscriptionTarget {
  id: string;
  provider: SubscriptionProvider;
  proxyUrl: string | null;
  origin: string;
  dispatcher: Dispatcher;
}

export interface SubscriptionSendDeps {
  ctx: AppContext;
  tokens: TokenManager;
  adapter: PlanAdapter;
  profile: SubscriptionProfile;
}

async function discard(res: Dispatcher.ResponseData): Promise<string> {
  try {
    return (await readAll(res.body, 64 * 1024)).toString('utf8').slice(0, 300);
  } catch {
    return '';
  }
}

export function subscriptionSend(t: SubscriptionTarget, deps: SubscriptionSendDeps): (req: UpstreamRequest) => Promise<Dispatcher.ResponseData> {
  const account = { id: t.id, provider: t.provider, proxyUrl: t.proxyUrl };

  const once = async (req: UpstreamRequest, token: AccessToken): Promise<Dispatcher.ResponseData> => {
    const adapted = deps.adapter.request(req, token, deps.profile);
    let res: Dispatcher.ResponseData;
    try {
      res = await t.dispatcher.request({ origin: t.origin, method: req.method, path: adapted.path, headers: adapted.headers, body: adapted.body, signal: req.signal });
    } catch (err) {
      throw upstreamFailure(err, req.signal) ?? err;
    }
    if (res.statusCode >= 400 || !deps.adapter.response) return res;
    try {
      return await deps.adapter.response(res, adapted);
    } catch (err) {
      throw upstreamFailure(err, req.signal) ?? err;
    }
  };

  return async (req) => {
    let token = await deps.tokens.get(account);
    let res = await once(req, token);
    if (res.statusCode !== 401) return res;
    await discard(res);
    token = await deps.tokens.afterUnauthorized(account, token);
    res = await once(req, token);
    if (res.statusCode !== 401 && res.statusCode !== 403) return res;
    const said = await discard(res);
    deps.tokens.forget(t.id);
    deps.ctx.log.warn({ account: t.id, provider: t.provider, status: res.statusCode }, 'subscription account refused after a token refresh; it needs a new sign-in');
    await changeAccountState(deps.ctx, {
      accountId: t.id, to: 'needs_sign_in', from: ['active', 'paused'], reason: 'unauthorized',
      details: { status: res.statusCode, provider_answer: said.replace(/\s+/g, ' ').slice(0, 200) },
    });
    throw svcError('account_needs_sign_in', `The ${deps.profile.label} account refused the gateway's sign-in (HTTP ${res.statusCode} after a token refresh); an administrator must sign it in again.`);
  };
}
