/**
 * The routing data of a proxy node: usable accounts and model aliases, loaded from Postgres into LookupCaches
 * (ACCOUNTS_CACHE, ALIASES_CACHE; the control plane invalidates them on every change), and the answer to
 * "which accounts serve model m", memoised per loaded snapshot so the hot path never scans or queries.
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';
import { allowsModel } from '../../core/ai/model-pattern.ts';
import { ACCOUNTS_CACHE, ALIASES_CACHE } from '../../core/ai/cache-names.ts';
import type { Dispatchers } from '../upstream/dispatchers.ts';
import { buildAccount, type AccountRow, type UpstreamAccount } from './upstream-account.ts';

/** An account out of rotation for now (quota pause, expired sign-in): kept only to explain a refusal. */
export interface RestingAccount {
  id: string;
  state: 'paused' | 'needs_sign_in';
  serves(model: string): boolean;
}

export interface AccountSnapshot {
  accounts: readonly UpstreamAccount[];
  resting: readonly RestingAccount[];
  /** model → accounts serving it, highest priority first (filled lazily). */
  byModel: Map<string, readonly UpstreamAccount[]>;
}

const ALL = 'all';
const MEMO_MAX = 5_000;

/** Builds a subscription account (proxy/subscriptions/subscription-account.ts), or says why it cannot. */
export type SubscriptionBuilder = (row: AccountRow) => UpstreamAccount | string;

export class RoutingTable {
  #ctx: AppContext;
  #dispatchers: Dispatchers;
  #subscriptions: SubscriptionBuilder | undefined;
  #accounts: LookupCache<AccountSnapshot>;
  #aliases: LookupCache<Map<string, readonly string[]>>;

  constructor(ctx: AppContext, dispatchers: Dispatchers, subscriptions?: SubscriptionBuilder) {
    this.#ctx = ctx;
    this.#dispatchers = dispatchers;
    this.#subscriptions = subscriptions;
    this.#accounts = ctx.caches.register(new LookupCache<AccountSnapshot>(ACCOUNTS_CACHE, 60_000));
    this.#aliases = ctx.caches.register(new LookupCache<Map<string, readonly string[]>>(ALIASES_CACHE, 60_000));
  }

  /** Aliases and accounts when both are cached (the usual case), without a promise; undefined otherwise. */
  cached(): { aliases: Map<string, readonly string[]>; snap: AccountSnapshot } | undefined {
    const aliases = this.#aliases.peek(ALL);
    const snap = aliases && this.#accounts.peek(ALL);
    return snap ? { aliases, snap } : undefined;
  }

  async aliases(): Promise<Map<string, readonly string[]>> {
    return this.#aliases.get(ALL, async () => {
      const r = await this.#ctx.db.query<{ name: string; models: string[] }>('SELECT name, models FROM model_aliases');
      this.#ctx.metrics.models.configure('aliases', r.rows.map((a) => a.name));
      return new Map(r.rows.map((a) => [a.name, a.models]));
    });
  }

  async snapshot(): Promise<AccountSnapshot> {
    return this.#accounts.get(ALL, () => this.#load());
  }

  /** Accounts serving `model`, highest priority first. */
  accountsFor(snap: AccountSnapshot, model: string): readonly UpstreamAccount[] {
    let list = snap.byModel.get(model);
    if (list === undefined) {
      list = snap.accounts.filter((a) => a.serves(model)).sort((a, b) => b.priority - a.priority);
      if (snap.byModel.size >= MEMO_MAX) snap.byModel.clear();
      snap.byModel.set(model, list);
    }
    return list;
  }

  /** Whether an account out of rotation for now (paused or needing a sign-in) would serve one of `models`. */
  restingFor(snap: AccountSnapshot, models: readonly string[]): RestingAccount | undefined {
    return snap.resting.find((a) => models.some((m) => a.serves(m)));
  }

  async #load(): Promise<AccountSnapshot> {
    const r = await this.#ctx.db.query<AccountRow & { state: string }>(
      `SELECT id, name, provider, kind, base_url, proxy_url, secret_sealed, models, model_list, weight, priority, state
         FROM provider_accounts WHERE state IN ('active', 'paused', 'needs_sign_in') ORDER BY priority DESC, created_at, id`,
    );
    const accounts: UpstreamAccount[] = [];
    const resting: RestingAccount[] = [];
    for (const row of r.rows) {
      if (row.state !== 'active') {
        const models = row.models ?? [];
        const list = Array.isArray(row.model_list) ? new Set(row.model_list) : null;
        resting.push({ id: row.id, state: row.state as RestingAccount['state'], serves: (m) => (models.length > 0 ? allowsModel(models, m) : list === null || list.has(m)) });
        continue;
      }
      const a = row.kind === 'subscription'
        ? this.#subscriptions?.(row) ?? 'subscription accounts are not enabled on this node'
        : buildAccount(row, this.#ctx.secretKey, this.#dispatchers);
      if (typeof a === 'string') this.#ctx.log.warn({ account: row.id, provider: row.provider }, `provider account skipped: ${a}`);
      else accounts.push(a);
    }
    // The metrics' model label keeps the names accounts list exactly (core/metrics/model-labels.ts).
    this.#ctx.metrics.models.configure('accounts', r.rows.flatMap((row) => [...(row.models ?? []), ...(Array.isArray(row.model_list) ? row.model_list.filter((m): m is string => typeof m === 'string') : [])]));
    return { accounts, resting, byModel: new Map() };
  }
}
