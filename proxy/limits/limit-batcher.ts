/**
 * Reserves and settles in batches: those queued while the event loop handles one round of I/O go to the limit
 * store together at the end of the round (turn-flush.ts), as one LimitStore.exchange per team (on Redis one script
 * per team and month: the settles first, then the reserves, each call seeing the ones before it). While a team's
 * exchange is in flight, the team's rounds that end meanwhile wait for it and leave together when it answers (group
 * commit: at most one round trip of waiting, and under load far fewer scripts per call). An idle gateway waits for
 * nothing but the end of the current I/O callbacks.
 *
 * Teams never wait for each other: on a Redis Cluster each team's counters live in one hash slot, and a slot whose
 * master is down must fail its own team's calls (closed) without holding back, or failing, the calls of teams
 * whose slots are up.
 *
 * A settle is never held back for a later round: a client that waits for its answer before its next call must
 * find that call's usage settled when the next one reserves (the settle leaves in the round its call ended, before
 * the answer's last byte, which waits for the usage record's commit). Settling is off the request path; the totals
 * feed the budget alerts.
 */
import type { Logger } from '../../core/logger.ts';
import type { Amount, LimitStore, LimitSubject, ReserveResult, Settlement, Totals } from '../../core/limits/limit-store.ts';
import { TurnBatch, TurnFlush } from './turn-flush.ts';

const MAX_BATCH = 256;
/** Past this many waiting for a team, its batch leaves without waiting for the team's exchange in flight. */
const MAX_WAITING = 1024;

type Queued =
  | { kind: 'reserve'; subject: LimitSubject; estimate: Amount; resolve: (r: ReserveResult) => void; reject: (err: unknown) => void }
  | { kind: 'settle'; item: Settlement; then: (totals: Totals) => void };

export class LimitBatcher {
  #store: LimitStore;
  #log: Logger;
  #batch: TurnBatch<Queued>;
  /** Exchanges in flight, in all and per team. */
  #inFlight = new Set<Promise<void>>();
  #teamsInFlight = new Map<string, number>();
  /** Per team: what ended a round while the team's exchange was in flight. */
  #waiting = new Map<string, Queued[]>();

  #timeoutMs: number;

  /** `reserveTimeoutMs`: a batch whose exchange takes longer fails its reserves (one timer per batch, not per call). */
  constructor(store: LimitStore, log: Logger, turn: TurnFlush = new TurnFlush(), reserveTimeoutMs = 2000) {
    this.#store = store;
    this.#log = log;
    this.#timeoutMs = reserveTimeoutMs;
    this.#batch = new TurnBatch(turn, MAX_BATCH, (batch) => this.#flush(batch));
  }

  reserve(subject: LimitSubject, estimate: Amount): Promise<ReserveResult> {
    return new Promise<ReserveResult>((resolve, reject) => this.#batch.add({ kind: 'reserve', subject, estimate, resolve, reject }));
  }

  /** Queues a settlement; `then` gets the totals after it (not called when the store fails: the error is logged). */
  settle(item: Settlement, then: (totals: Totals) => void): void {
    this.#batch.add({ kind: 'settle', item, then });
  }

  #flush(batch: Queued[]): void {
    const byTeam = new Map<string, Queued[]>();
    for (const q of batch) {
      const team = q.kind === 'reserve' ? q.subject.teamId : q.item.subject.teamId;
      const list = byTeam.get(team);
      if (list) list.push(q);
      else byTeam.set(team, [q]);
    }
    for (const [team, items] of byTeam) {
      const waiting = this.#waiting.get(team) ?? [];
      if (this.#teamsInFlight.has(team) && waiting.length + items.length <= MAX_WAITING) {
        for (const q of items) waiting.push(q);
        this.#waiting.set(team, waiting);
      } else this.#send(team, items);
    }
  }

  #send(team: string, batch: Queued[]): void {
    const reserves = batch.filter((q) => q.kind === 'reserve');
    const settles = batch.filter((q) => q.kind === 'settle');
    let late = false;
    const timer = reserves.length === 0 ? undefined : setTimeout(() => {
      late = true;
      const err = new Error(`the counters did not answer within ${this.#timeoutMs} ms`);
      for (const q of reserves) q.reject(err);
    }, this.#timeoutMs);
    const p = this.#store.exchange(settles.map((q) => q.item), reserves).then(
      ({ totals, results }) => {
        clearTimeout(timer);
        for (let i = 0; i < settles.length; i++) settles[i].then(totals[i]);
        for (let i = 0; i < reserves.length; i++) {
          const r = results[i];
          // Refused already for lateness: a reservation made after all is given back at once, not held until it expires.
          if (late && r.ok) this.settle({ subject: reserves[i].subject, reservationId: r.reservationId, actual: { tokens: 0, dollars: 0 } }, () => {});
          else reserves[i].resolve(r);
        }
      },
      (err: unknown) => {
        clearTimeout(timer);
        for (const q of reserves) q.reject(err);
        if (settles.length > 0) this.#log.warn({ err, calls: settles.length }, 'usage could not be settled in the limit counters; the reservations expire and the next seed catches up');
      },
    ).finally(() => {
      this.#inFlight.delete(p);
      const left = (this.#teamsInFlight.get(team) ?? 1) - 1;
      if (left > 0) return void this.#teamsInFlight.set(team, left);
      this.#teamsInFlight.delete(team);
      const waiting = this.#waiting.get(team);
      if (waiting) {
        this.#waiting.delete(team);
        this.#send(team, waiting);
      }
    });
    this.#inFlight.add(p);
    this.#teamsInFlight.set(team, (this.#teamsInFlight.get(team) ?? 0) + 1);
  }

  /** Sends what is queued and waits for every batch in flight (shutdown, tests). */
  async drain(): Promise<void> {
    this.#batch.flush();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }
}
