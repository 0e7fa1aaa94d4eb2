/**
 * Quota-aware rotation (DESIGN.md §3 step 5; replaces the round-robin picker). Among the accounts serving a model:
 * - skip the ones tried already in this call, paused for the model's family (a whole-account pause removes the
 *   account from the routing table itself; needs_sign_in too), and cooling down (cooldowns shared by all nodes);
 * - keep a conversation on its account (session key → account in the shared counters for 1 h, renewed while used),
 *   and drop that binding when the account becomes unavailable;
 * - send a new conversation to the highest priority present, and inside it in proportion to weight × quota left
 *   (smooth weighted round-robin: the account with the most quota left gets the next one, the others their share);
 * - when every account is cooling down, try the one that recovers first rather than refusing the call (after a 429
 *   only when no alias model is left; see lastResort).
 * Outcomes feed cooldowns (429 until Retry-After or the plan's reset, else 1 s doubling to 30 min; 529: 3 min;
 * other 5xx and connection failures or timeouts: 60 s) and the quota windows seen in rate-limit headers.
 */
import type { AppContext } from '../../core/context.ts';
import { isSubscriptionProvider, subscriptionProfile, type RateLimitHeaderFormat } from '../../core/ai/provider-profiles.ts';
import { CooldownBoard, rateLimitBackoffMs, type Cooldown } from '../../core/ai/subscriptions/cooldown-board.ts';
import type { AccountPicker, PickHint, PickOutcome } from '../accounts/account-picker.ts';
import type { UpstreamAccount } from '../accounts/upstream-account.ts';
import { HeaderWindows } from './header-windows.ts';
import { familyLimits, RotationData, type WindowUse } from './rotation-data.ts';
import type { Pause } from '../../core/ai/subscriptions/pauses.ts';

export interface QuotaPickerOptions {
  stickyTtlMs?: number;
}

const STICKY_TTL_MS = 3_600_000;
/** A binding is written again (its TTL renewed) at most this often while the conversation goes on. */
const STICKY_RENEW_MS = 5 * 60_000;
const MAX_COOLDOWN_MS = 24 * 3_600_000;
const ERROR_COOLDOWN_MS = 60_000;
const OVERLOADED_COOLDOWN_MS = 180_000;
const MIN_HEADROOM = 0.02;

export class QuotaPicker implements AccountPicker {
  readonly board: CooldownBoard;
  readonly data: RotationData;
  #ctx: AppContext;
  #stickyTtlMs: number;
  #headers: HeaderWindows;
  #swrr = new Map<string, Map<string, number>>();
  #pending = new Set<Promise<void>>();

  constructor(ctx: AppContext, opts: QuotaPickerOptions = {}) {
    this.#ctx = ctx;
    this.#stickyTtlMs = opts.stickyTtlMs ?? STICKY_TTL_MS;
    this.board = new CooldownBoard(ctx.counters, ctx.clock);
    this.data = new RotationData(ctx);
    this.#headers = new HeaderWindows(ctx, this.data);
  }

  /**
   * Synchronous when everything it needs is in memory (cooldowns primed, pauses and windows cached, no sticky
   * session to look up): the usual call with one account serving the model costs no promise.
   */
  pick(model: string, candidates: readonly UpstreamAccount[], tried: ReadonlySet<string>, hint?: PickHint): UpstreamAccount | undefined | Promise<UpstreamAccount | undefined> {
    if (candidates.length === 0) return undefined;
    const priming = this.board.prime(candidates);
    const pauses = this.data.cachedPauses();
    const windows = this.data.cachedWindows();
    if (priming === undefined && pauses !== undefined && windows !== undefined) return this.#choose(model, candidates, tried, hint, pauses, windows);
    return this.#loadAndChoose(priming, model, candidates, tried, hint);
  }

  async #loadAndChoose(
    priming: Promise<void> | undefined, model: string, candidates: readonly UpstreamAccount[], tried: ReadonlySet<string>, hint: PickHint | undefined,
  ): Promise<UpstreamAccount | undefined> {
    await priming;
    const [pauses, windows] = await Promise.all([this.data.pauses(), this.data.windows()]);
    return this.#choose(model, candidates, tried, hint, pauses, windows);
  }

  #choose(
    model: string, candidates: readonly UpstreamAccount[], tried: ReadonlySet<string>, hint: PickHint | undefined,
    pauses: Map<string, Pause[]>, windows: Map<string, WindowUse[]>,
  ): UpstreamAccount | undefined | Promise<UpstreamAccount | undefined> {
    const now = this.#ctx.clock.now();
    const usable: UpstreamAccount[] = [];
    const cooling: [UpstreamAccount, Cooldown][] = [];
    const unavailable = new Set<string>();
    for (const a of candidates) {
      const ps = pauses.get(a.id);
      const paused = ps !== undefined && ps.some((p) => p.until > now && familyLimits(p.family, model));
      const cool = this.board.get(a.id);
      if (paused || cool || tried.has(a.id)) unavailable.add(a.id);
      if (tried.has(a.id) || paused) continue;
      if (cool) cooling.push([a, cool]);
      else usable.push(a);
    }
    if (usable.length === 0) return lastResort(cooling, hint?.lastStep ?? true);
    const key = candidates.length > 1 ? hint?.sessionKey : undefined;
    if (key !== undefined) return this.#sticky(key, model, usable, unavailable, windows, now);
    return this.#best(model, usable, windows);
  }

  /** Keeps a conversation on its account while that one is usable; binds it to a new choice otherwise. */
  async #sticky(key: string, model: string, usable: UpstreamAccount[], unavailable: Set<string>, windows: Map<string, WindowUse[]>, now: number): Promise<UpstreamAccount> {
    const [boundId, boundAt] = ((await this.#ctx.counters.getValue(stickyKey(key))) ?? '').split('|');
    const bound = usable.find((a) => a.id === boundId);
    if (bound) {
      if (now - Number(boundAt) > STICKY_RENEW_MS) await this.#bind(key, bound.id, now);
      return bound;
    }
    if (boundId && unavailable.has(boundId)) await this.#ctx.counters.del(stickyKey(key));
    const chosen = this.#best(model, usable, windows);
    if (!boundId || unavailable.has(boundId)) await this.#bind(key, chosen.id, now);
    return chosen;
  }

  /** The highest priority present; inside it, weighted by quota left. */
  #best(model: string, usable: UpstreamAccount[], windows: Map<string, WindowUse[]>): UpstreamAccount {
    if (usable.length === 1) return usable[0];
    const top = Math.max(...usable.map((a) => a.priority));
    const tier = usable.filter((a) => a.priority === top);
    return tier.length === 1 ? tier[0] : this.#weighted(model, tier, windows);
  }

  report(account: UpstreamAccount, outcome: PickOutcome): void {
    // A success of an account with no run of 429s and no quota headers to read changes nothing.
    if (outcome.ok && !this.board.struck(account.id) && this.#format(account).format === null) return;
    const p = this.#record(account, outcome)
      .catch((err) => this.#ctx.log.warn({ err, account: account.id }, 'recording an account outcome failed'))
      .finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** Waits for outcome bookkeeping still under way (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async #bind(key: string, accountId: string, now: number): Promise<void> {
    await this.#ctx.counters.setValue(stickyKey(key), `${accountId}|${now}`, this.#stickyTtlMs);
  }

  #format(a: UpstreamAccount): { format: RateLimitHeaderFormat | null; families: Record<string, string> } {
    if (a.kind !== 'subscription' || !isSubscriptionProvider(a.provider)) return { format: null, families: {} };
    const p = subscriptionProfile(this.#ctx.config.providerProfiles, a.provider);
    return { format: p.rate_limit_headers, families: p.window_families };
  }

  async #record(a: UpstreamAccount, o: PickOutcome): Promise<void> {
    const { format, families } = this.#format(a);
    const now = this.#ctx.clock.now();
    if (o.ok) {
      await this.board.forgive(a.id);
      if (format && o.headers) await this.#headers.seen(a.id, format, o.headers, families);
      return;
    }
    if (o.status === 429) {
      if (format && o.headers) await this.#headers.seen(a.id, format, o.headers, families);
      // The plan's own reset means its quota is spent ('quota': never tried as a last resort before then).
      const planReset = this.#headers.resetAfter429(format, o.headers ?? {});
      let until = o.retryAfterS !== undefined ? now + o.retryAfterS * 1000 : planReset;
      until ??= now + rateLimitBackoffMs(await this.board.strike(a.id));
      await this.board.set(a.id, { until: Math.min(until, now + MAX_COOLDOWN_MS), reason: planReset !== undefined ? 'quota' : 'rate_limited' });
      return;
    }
    if (o.status === 529) return this.board.set(a.id, { until: now + OVERLOADED_COOLDOWN_MS, reason: 'overloaded' });
    await this.board.set(a.id, { until: now + ERROR_COOLDOWN_MS, reason: o.status === undefined ? 'unreachable' : 'server_error' });
  }

  /** Smooth weighted round-robin (as nginx does) over weight × share of quota left for this model. */
  #weighted(model: string, tier: UpstreamAccount[], windows: Map<string, WindowUse[]>): UpstreamAccount {
    let state = this.#swrr.get(model);
    if (state === undefined) {
      if (this.#swrr.size > 10_000) this.#swrr.clear();
      state = new Map();
      this.#swrr.set(model, state);
    }
    const now = this.#ctx.clock.now();
    let total = 0;
    let best = tier[0];
    let bestScore = -Infinity;
    for (const a of tier) {
      const used = (windows.get(a.id) ?? []).filter((w) => familyLimits(w.family, model) && (w.resetsAt === null || w.resetsAt > now)).map((w) => w.used);
      const left = Math.max(MIN_HEADROOM, 1 - Math.max(0, ...used));
      const w = a.weight * left;
      const score = (state.get(a.id) ?? 0) + w;
      state.set(a.id, score);
      total += w;
      if (score > bestScore) {
        best = a;
        bestScore = score;
      }
    }
    state.set(best.id, bestScore - total);
    return best;
  }
}

function stickyKey(sessionKey: string): string {
  return `sticky:${sessionKey}`;
}

/**
 * The cooling account that recovers first, when nothing else can serve the model: after errors always; after a 429
 * only on the plan's last model (better the provider's own 429 with its Retry-After, which SDKs retry, than a 503
 * from the gateway; while an alias has another model, that model is tried instead). Never one out of quota.
 */
function lastResort(cooling: [UpstreamAccount, Cooldown][], allowRateLimited: boolean): UpstreamAccount | undefined {
  let best: [UpstreamAccount, Cooldown] | undefined;
  for (const c of cooling) {
    if (c[1].reason === 'quota' || (c[1].reason === 'rate_limited' && !allowRateLimited)) continue;
    if (!best || c[1].until < best[1].until) best = c;
  }
  return best?.[0];
}
