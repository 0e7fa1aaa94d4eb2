/**
 * Access tokens of subscription accounts, refreshed ahead of expiry, single-flight per account across nodes.
 *
 * Refresh tokens rotate (reference: subscription-accounts.md): two nodes refreshing at once would each present the
 * same refresh token, the second gets `invalid_grant`, and the account dies. So a refresh runs under a lock in the
 * shared counters (`oauth-refresh:<account>`, Redis SET NX across nodes); a node that does not get the lock waits and
 * re-reads the stored tokens until the version changes (the winner saved them). The winner re-reads under the lock
 * too, and saves compare-and-set on the version (token-store.ts).
 *
 * Failures: the provider refusing the refresh token (`invalid_grant` and relatives) marks the account
 * `needs_sign_in` (out of rotation until someone signs it in again). A provider outage keeps the old token while it
 * is still valid and retries with exponential backoff (5 s doubling to 5 min), recorded on the token row.
 */
import type { AppContext } from '../../context.ts';
import { svcError } from '../../errors.ts';
import { subscriptionProfile, type SubscriptionProvider } from '../provider-profiles.ts';
import { changeAccountState } from './account-state.ts';
import { refreshTokens, type AccountMeta } from './oauth-client.ts';
import { readTokens, saveRefreshedTokens, saveRefreshFailure, type StoredTokens } from './token-store.ts';

export interface TokenAccount {
  id: string;
  provider: SubscriptionProvider;
  proxyUrl: string | null;
}

export interface AccessToken {
  access: string;
  meta: AccountMeta;
  version: number;
  /** Unix ms. */
  expiresAt: number;
}

export interface TokenManagerOptions {
  /** How long a refresh may hold the lock. */
  lockTtlMs?: number;
  /** How long a node waits for another node's refresh before giving up. */
  waitMs?: number;
  pollMs?: number;
}

const BACKOFF_FIRST_MS = 5_000;
const BACKOFF_MAX_MS = 300_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class TokenManager {
  #ctx: AppContext;
  #lockTtlMs: number;
  #waitMs: number;
  #pollMs: number;
  #mem = new Map<string, AccessToken>();
  #inFlight = new Map<string, Promise<AccessToken>>();

  constructor(ctx: AppContext, opts: TokenManagerOptions = {}) {
    this.#ctx = ctx;
    this.#lockTtlMs = opts.lockTtlMs ?? 30_000;
    this.#waitMs = opts.waitMs ?? 20_000;
    this.#pollMs = opts.pollMs ?? 100;
  }

  #leadMs(a: TokenAccount): number {
    return subscriptionProfile(this.#ctx.config.providerProfiles, a.provider).refresh_lead_seconds * 1000;
  }

  /** A usable access token: from memory while it is fresh, else re-read or refreshed. */
  async get(a: TokenAccount): Promise<AccessToken> {
    const hit = this.#mem.get(a.id);
    if (hit && hit.expiresAt - this.#leadMs(a) > this.#ctx.clock.now()) return hit;
    return this.#singleFlight(a, undefined);
  }

  /** After the provider refused `stale` (HTTP 401): a token other than `stale`, refreshing if nobody did yet. */
  async afterUnauthorized(a: TokenAccount, stale: AccessToken): Promise<AccessToken> {
    this.#mem.delete(a.id);
    return this.#singleFlight(a, stale.access);
  }

  /** Drops what this node remembers (after a new sign-in or a refusal). */
  forget(accountId: string): void {
    this.#mem.delete(accountId);
  }

  #singleFlight(a: TokenAccount, stale: string | undefined): Promise<AccessToken> {
    const running = this.#inFlight.get(a.id);
    if (running) return running;
    const p = this.#obtain(a, stale).finally(() => this.#inFlight.delete(a.id));
    this.#inFlight.set(a.id, p);
    return p;
  }

  /** Does this stored token need a refresh (ahead of expiry, or because the provider refused `stale`)? */
  #due(a: TokenAccount, t: StoredTokens, stale: string | undefined): boolean {
    if (stale !== undefined) return t.access === stale;
    return t.expiresAt - this.#leadMs(a) <= this.#ctx.clock.now();
  }

  #keep(t: StoredTokens): AccessToken {
    const tok = { access: t.access, meta: t.meta, version: t.version, expiresAt: t.expiresAt };
    this.#mem.set(t.accountId, tok);
    return tok;
  }

  async #read(a: TokenAccount): Promise<StoredTokens> {
    const t = await readTokens(this.#ctx.db, this.#ctx.secretKey, a.id);
    if (t) return t;
    await changeAccountState(this.#ctx, { accountId: a.id, to: 'needs_sign_in', from: ['active', 'paused'], reason: 'no_tokens' });
    throw svcError('account_needs_sign_in', 'The provider account has no stored sign-in (or it cannot be decrypted with this SVC_SECRET_KEY); sign it in again.');
  }

  /** The old token while it still works (and was not just refused), else a 503 naming the outage. */
  #fallback(t: StoredTokens, why: string, stale: string | undefined): AccessToken {
    if (t.expiresAt > this.#ctx.clock.now() && t.access !== stale) return this.#keep(t);
    throw svcError('account_token_unavailable', `The provider account's access token expired and could not be refreshed (${why}); retry shortly.`);
  }

  async #obtain(a: TokenAccount, stale: string | undefined): Promise<AccessToken> {
    const seen = await this.#read(a);
    if (!this.#due(a, seen, stale)) return this.#keep(seen);
    const now = this.#ctx.clock.now();
    if (seen.nextRefreshAt !== null && seen.nextRefreshAt > now) return this.#fallback(seen, seen.lastRefreshError ?? 'backing off after a failed refresh', stale);
    const started = performance.now();
    for (;;) {
      const release = await this.#ctx.counters.lock(`oauth-refresh:${a.id}`, this.#lockTtlMs);
      if (release) {
        try {
          return await this.#refreshLocked(a, stale);
        } finally {
          await release().catch(() => {});
        }
      }
      // Another node is refreshing: wait for its result in the database.
      await sleep(this.#pollMs);
      const now2 = await this.#read(a);
      if (now2.version !== seen.version && !this.#due(a, now2, stale)) return this.#keep(now2);
      if (performance.now() - started > this.#waitMs) return this.#fallback(now2, 'another node is still refreshing it', stale);
    }
  }

  async #refreshLocked(a: TokenAccount, stale: string | undefined): Promise<AccessToken> {
    const ctx = this.#ctx;
    const cur = await this.#read(a);
    if (!this.#due(a, cur, stale)) return this.#keep(cur);
    if (cur.refresh === null) {
      await changeAccountState(ctx, { accountId: a.id, to: 'needs_sign_in', from: ['active', 'paused'], reason: 'no_refresh_token' });
      throw svcError('account_needs_sign_in', 'The provider gave no refresh token for this account; sign it in again.');
    }
    const now = ctx.clock.now();
    const profile = subscriptionProfile(ctx.config.providerProfiles, a.provider);
    const r = await refreshTokens(profile, cur.refresh, a.proxyUrl, now);
    if (r.ok) {
      const version = await saveRefreshedTokens(ctx.db, ctx.secretKey, a.id, cur.version, r.value, now);
      if (version === null) return this.#keep(await this.#read(a));
      ctx.log.info({ account: a.id, provider: a.provider }, 'subscription account token refreshed');
      const tok = { access: r.value.access, meta: { ...cur.meta, ...r.value.meta }, version, expiresAt: r.value.expiresAt };
      this.#mem.set(a.id, tok);
      return tok;
    }
    if (r.kind === 'refused') {
      this.#mem.delete(a.id);
      ctx.log.warn({ account: a.id, provider: a.provider, reason: r.reason }, 'subscription account refresh refused; the account needs a new sign-in');
      await changeAccountState(ctx, { accountId: a.id, to: 'needs_sign_in', from: ['active', 'paused'], reason: 'refresh_refused', details: { provider_answer: r.reason } });
      throw svcError('account_needs_sign_in', `The provider refused to refresh this account's sign-in (${r.reason}); an administrator must sign it in again.`);
    }
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(cur.refreshFailures, 16));
    ctx.log.warn({ account: a.id, provider: a.provider, reason: r.reason, retryInMs: delay }, 'subscription account refresh failed; keeping the old token');
    await saveRefreshFailure(ctx.db, a.id, cur.version, r.reason, now + delay, now);
    return this.#fallback(cur, `the provider answered ${r.reason}`, stale);
  }
}

const managers = new WeakMap<AppContext, TokenManager>();

/** The node's token manager for this context (one per process and context, shared by the proxy and the control plane). */
export function tokenManagerOf(ctx: AppContext): TokenManager {
  let m = managers.get(ctx);
  if (!m) {
    m = new TokenManager(ctx);
    managers.set(ctx, m);
  }
  return m;
}
