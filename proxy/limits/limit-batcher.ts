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
 *
 * A settle the store could not take (Redis down, or a master of a cluster) is not lost twice: its call's usage is
 * in the usage records, so the key is marked to be seeded again (`lostSettle`, before its next reserve), and its
 * reservation is released (a settle of no usage, which does nothing if it was released already) in the team's next
 * exchange, instead of holding the budget until it expires. So is a settle held back longer than HELD_MS, or across
 * a loss, before it could leave (its team's exchange was stuck while Redis was away): by the time it would land, a
 * seed may have counted its usage from the records already. The same goes for the settles of the last RECENT_MS
 * once the store says it may have lost writes (LimitStore.lossCount(): a restart that lost its last second, a
 * failover to a replica that had not received them): their usage comes back with the seed that the loss triggers,
 * and their reservations, which the loss may have brought back, are released again.
 */
import type { Logger } from '../../core/logger.ts';
import type { Amount, LimitStore, LimitSubject, ReserveResult, Settlement, Totals } from '../../core/limits/limit-store.ts';
import { Fifo } from '../../core/fifo.ts';
import { TurnBatch, TurnFlush } from './turn-flush.ts';

const MAX_BATCH = 256;
/** Past this many waiting for a team, its batch leaves without waiting for the team's exchange in flight. */
const MAX_WAITING = 1024;
/** Releases kept per team for its next exchange; older ones are left to expire. */
const MAX_RELEASES = 4096;
/** Settles released again after a loss: longer than `appendfsync everysec` can lose (up to 2 s) or a replica lags. */
export const RECENT_MS = 10_000;
const MAX_RECENT = 100_000;
/** A settle that waited longer than this to leave goes as a release, its usage left to the seed. */
export const HELD_MS = 1000;

type Queued =
  | { kind: 'reserve'; subject: LimitSubject; estimate: Amount; resolve: (r: ReserveResult) => void; reject: (err: unknown) => void }
  | { kind: 'settle'; item: Settlement; then: (totals: Totals) => void; at: number; losses: number };
type QueuedSettle = Extract<Queued, { kind: 'settle' }>;

export class LimitBatcher {
  #store: LimitStore;
  #log: Logger;
  #batch: TurnBatch<Queued>;
  /** Exchanges in flight, in all and per team. */
  #inFlight = new Set<Promise<void>>();
  #teamsInFlight = new Map<string, number>();
  /** Per team: what ended a round while the team's exchange was in flight. */
  #waiting = new Map<string, Queued[]>();
  /** Per team: reservations of settles the store could not take, released with the team's next exchange. */
  #releases = new Map<string, Settlement[]>();
  /** Settles of the last RECENT_MS that released a reservation, oldest first. */
  #recent = new Fifo<{ at: number; team: string; item: Settlement }>();
  #losses: number;

  #timeoutMs: number;
  #lostSettle: (s: LimitSubject) => void;

  /**
   * `reserveTimeoutMs`: a batch whose exchange takes longer fails its reserves (one timer per batch, not per call).
   * `lostSettle`: told the subject of a settle the store could not take, and again once its reservation is released.
   */
  constructor(store: LimitStore, log: Logger, turn: TurnFlush = new TurnFlush(), reserveTimeoutMs = 2000, lostSettle: (s: LimitSubject) => void = () => {}) {
    this.#store = store;
    this.#log = log;
    this.#timeoutMs = reserveTimeoutMs;
    this.#lostSettle = lostSettle;
    this.#losses = store.lossCount();
    this.#batch = new TurnBatch(turn, MAX_BATCH, (batch) => this.#flush(batch));
  }

  reserve(subject: LimitSubject, estimate: Amount): Promise<ReserveResult> {
    return new Promise<ReserveResult>((resolve, reject) => this.#batch.add({ kind: 'reserve', subject, estimate, resolve, reject }));
  }

  /** Queues a settlement; `then` gets the totals after it (not called when the store fails: the error is logged). */
  settle(item: Settlement, then: (totals: Totals) => void): void {
    this.#batch.add({ kind: 'settle', item, then, at: Date.now(), losses: this.#store.lossCount() });
  }

  #flush(batch: Queued[]): void {
    const losses = this.#store.lossCount();
    if (losses !== this.#losses) {
      this.#losses = losses;
      for (const r of this.#recent.takeAll()) this.#release(r.team, r.item);
    }
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
    const now = Date.now();
    const losses = this.#store.lossCount();
    const releases = this.#releases.get(team) ?? [];
    this.#releases.delete(team);
    const fresh: QueuedSettle[] = [];
    for (const q of batch) {
      if (q.kind !== 'settle') continue;
      if (now - q.at <= HELD_MS && q.losses === losses) fresh.push(q);
      else {
        this.#lostSettle(q.item.subject);
        if (q.item.reservationId !== '') releases.push(releaseOf(q.item));
      }
    }
    const settles: QueuedSettle[] = [...releases.map((item) => ({ kind: 'settle' as const, item, then: () => {}, at: now, losses })), ...fresh];
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
        // Seeded again once more now that they are released: a seed made before the store came back may have read
        // the records before these calls' own were written.
        for (const r of releases) this.#lostSettle(r.subject);
        const done = Date.now();
        for (let r = this.#recent.peek(); r && (done - r.at > RECENT_MS || this.#recent.length >= MAX_RECENT); r = this.#recent.peek()) this.#recent.shift();
        for (const q of fresh) if (q.item.reservationId !== '') this.#recent.push({ at: done, team, item: q.item });
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
        if (settles.length === 0) return;
        this.#log.warn({ err, calls: settles.length }, 'usage could not be settled in the limit counters; the keys are seeded again from the usage records and the reservations released once they answer');
        for (const q of settles) {
          this.#lostSettle(q.item.subject);
          this.#release(team, q.item);
        }
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

  /** Queues the release of a settle's reservation (no usage) for the team's next exchange. */
  #release(team: string, item: Settlement): void {
    if (item.reservationId === '') return;
    const keep = this.#releases.get(team) ?? [];
    if (keep.length < MAX_RELEASES) keep.push(releaseOf(item));
    this.#releases.set(team, keep);
  }

  /** Sends what is queued and waits for every batch in flight (shutdown, tests). */
  async drain(): Promise<void> {
    this.#batch.flush();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }
}

/** A settle of no usage: releases the reservation if it is still held, and does nothing otherwise. */
function releaseOf(item: Settlement): Settlement {
  return { subject: item.subject, reservationId: item.reservationId, actual: { tokens: 0, dollars: 0 } };
}
