/**
 * Which account serves the next call of a model (DESIGN.md §3, step 5). One interface, so that quota-aware
 * rotation with sticky conversations (subscription accounts) can replace the default without touching the routes.
 *
 * The default, RoundRobinPicker: among the accounts of the highest priority that are not cooling down, take turns
 * in proportion to their weights (smooth weighted round-robin, as nginx does); an account whose call failed with
 * 429, 5xx or a connection error cools down for a while (Retry-After when the upstream said, else 30 s, at most
 * 5 min) in this node's memory. When every account is cooling down, the one that recovers first is tried rather
 * than refusing the call.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamAccount } from './upstream-account.ts';

export interface PickHint {
  /** A stable conversation key (for sticky routing; unused by round-robin). */
  sessionKey?: string;
  /** This is the plan's last model (no alias fallback left): a cooling account is better than no answer. */
  lastStep?: boolean;
}

/** How a call went; `headers` are the upstream's answer headers (rate-limit and quota headers). */
export type PickOutcome = { ok: true; headers?: IncomingHttpHeaders } | { ok: false; status?: number; retryAfterS?: number; headers?: IncomingHttpHeaders };

export interface AccountPicker {
  /** The next account for `model` among `candidates` (highest priority first), never one in `tried`. */
  pick(model: string, candidates: readonly UpstreamAccount[], tried: ReadonlySet<string>, hint?: PickHint): UpstreamAccount | undefined | Promise<UpstreamAccount | undefined>;
  /** How a call through `account` went. */
  report(account: UpstreamAccount, outcome: PickOutcome): void;
}

const DEFAULT_COOLDOWN_MS = 30_000;
const MAX_COOLDOWN_MS = 300_000;

export class RoundRobinPicker implements AccountPicker {
  #now: () => number;
  #coolUntil = new Map<string, number>();
  /** Smooth weighted round-robin state: model → account id → current weight. */
  #current = new Map<string, Map<string, number>>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  pick(model: string, candidates: readonly UpstreamAccount[], tried: ReadonlySet<string>): UpstreamAccount | undefined {
    const now = this.#now();
    let tier: UpstreamAccount[] = [];
    let tierPriority: number | undefined;
    let fallback: UpstreamAccount | undefined;
    let fallbackAt = Infinity;
    for (const a of candidates) {
      if (tried.has(a.id)) continue;
      const until = this.#coolUntil.get(a.id);
      if (until !== undefined && until > now) {
        if (until < fallbackAt) {
          fallback = a;
          fallbackAt = until;
        }
        continue;
      }
      if (tierPriority === undefined) tierPriority = a.priority;
      if (a.priority === tierPriority) tier.push(a);
    }
    if (tier.length === 0) return fallback;
    if (tier.length === 1) return tier[0];
    return this.#weighted(model, tier);
  }

  report(account: UpstreamAccount, outcome: PickOutcome): void {
    if (outcome.ok) {
      if (this.#coolUntil.size > 0) this.#coolUntil.delete(account.id);
      return;
    }
    const ms = outcome.retryAfterS !== undefined ? Math.min(MAX_COOLDOWN_MS, Math.max(1000, outcome.retryAfterS * 1000)) : DEFAULT_COOLDOWN_MS;
    this.#coolUntil.set(account.id, this.#now() + ms);
  }

  #weighted(model: string, tier: UpstreamAccount[]): UpstreamAccount {
    let state = this.#current.get(model);
    if (state === undefined) {
      state = new Map();
      if (this.#current.size > 10_000) this.#current.clear();
      this.#current.set(model, state);
    }
    let total = 0;
    let best: UpstreamAccount = tier[0];
    let bestWeight = -Infinity;
    for (const a of tier) {
      const w = (state.get(a.id) ?? 0) + a.weight;
      state.set(a.id, w);
      total += a.weight;
      if (w > bestWeight) {
        best = a;
        bestWeight = w;
      }
    }
    state.set(best.id, bestWeight - total);
    return best;
  }
}
