import { describe, expect, it } from 'vitest';
import type { Exchanged, LimitStore, LimitSubject, Reservation, Settlement } from '../../core/limits/limit-store.ts';
import { createLogger } from '../../core/logger.ts';
import { LimitBatcher } from './limit-batcher.ts';

const subject: LimitSubject = { keyId: 'k1', teamId: 't1', month: '2026-11', key: { tokensPerMonth: 100 } };

/** A store that records each exchange and answers (or fails) when the test says so. */
function recordingStore() {
  const calls: { settles: readonly Settlement[]; reserves: readonly Reservation[]; answer(): void; fail(): void }[] = [];
  const losses = { n: 0 };
  const store = {
    lossCount: () => losses.n,
    exchange: (settles: readonly Settlement[], reserves: readonly Reservation[]) => new Promise<Exchanged>((resolve, reject) => {
      calls.push({
        settles, reserves,
        answer: () => resolve({
          totals: settles.map(() => ({ keyTokens: 1, keyDollars: 0, teamTokens: 1 })),
          results: reserves.map((_, i) => ({ ok: true, reservationId: `r${calls.length}-${i}` })),
        }),
        fail: () => reject(new Error('Connection is closed.')),
      });
    }),
  } as unknown as LimitStore;
  return { store, calls, losses };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('LimitBatcher', () => {
  it('sends the settles and reserves of one round of I/O as one exchange', async () => {
    const { store, calls } = recordingStore();
    const b = new LimitBatcher(store, createLogger('silent'));
    const totals: unknown[] = [];
    const a = b.reserve(subject, { tokens: 10, dollars: 0 });
    b.settle({ subject, reservationId: 'old', actual: { tokens: 5, dollars: 0 } }, (t) => totals.push(t));
    const c = b.reserve(subject, { tokens: 20, dollars: 0 });
    await turn();
    expect(calls).toHaveLength(1);
    expect(calls[0].settles.map((s) => s.reservationId)).toEqual(['old']);
    expect(calls[0].reserves.map((r) => r.estimate.tokens)).toEqual([10, 20]);
    calls[0].answer();
    expect(await a).toEqual({ ok: true, reservationId: 'r1-0' });
    expect(await c).toEqual({ ok: true, reservationId: 'r1-1' });
    expect(totals).toHaveLength(1);
  });

  it('holds the rounds that end while an exchange is in flight and sends them together when it answers', async () => {
    const { store, calls } = recordingStore();
    const b = new LimitBatcher(store, createLogger('silent'));
    const first = b.reserve(subject, { tokens: 1, dollars: 0 });
    await turn();
    const second = b.reserve(subject, { tokens: 2, dollars: 0 });
    await turn();
    b.settle({ subject, reservationId: 'x', actual: { tokens: 1, dollars: 0 } }, () => {});
    const third = b.reserve(subject, { tokens: 3, dollars: 0 });
    await turn();
    expect(calls).toHaveLength(1);
    calls[0].answer();
    await first;
    await turn();
    expect(calls).toHaveLength(2);
    expect(calls[1].settles.map((x) => x.reservationId)).toEqual(['x']);
    expect(calls[1].reserves.map((r) => r.estimate.tokens)).toEqual([2, 3]);
    calls[1].answer();
    expect(await second).toMatchObject({ ok: true });
    expect(await third).toMatchObject({ ok: true });
    await b.drain();
  });

  it('refuses reserves whose exchange is late, and gives back what they reserved once it answers', async () => {
    const { store, calls } = recordingStore();
    const b = new LimitBatcher(store, createLogger('silent'), undefined, 20);
    const late = b.reserve(subject, { tokens: 10, dollars: 0 });
    await expect(late).rejects.toThrow(/did not answer within 20 ms/);
    calls[0].answer();
    await turn();
    await turn();
    expect(calls).toHaveLength(2);
    expect(calls[1].settles).toEqual([{ subject, reservationId: 'r1-0', actual: { tokens: 0, dollars: 0 } }]);
    expect(calls[1].reserves).toEqual([]);
  });

  it('sends each team on its own: a team whose counters hang neither holds back nor fails the others', async () => {
    const { store, calls } = recordingStore();
    const b = new LimitBatcher(store, createLogger('silent'), undefined, 50);
    const other = { ...subject, keyId: 'k2', teamId: 't2' };
    const stuck = b.reserve(subject, { tokens: 1, dollars: 0 });
    const first = b.reserve(other, { tokens: 2, dollars: 0 });
    await turn();
    expect(calls.map((c) => c.reserves.map((r) => r.subject.teamId))).toEqual([['t1'], ['t2']]);
    calls[1].answer();
    expect(await first).toMatchObject({ ok: true });
    // t1's exchange is still in flight: t2's next round leaves at once, t1's waits for it.
    const second = b.reserve(other, { tokens: 3, dollars: 0 });
    const held = b.reserve(subject, { tokens: 4, dollars: 0 });
    await turn();
    expect(calls).toHaveLength(3);
    expect(calls[2].reserves.map((r) => r.estimate.tokens)).toEqual([3]);
    calls[2].answer();
    expect(await second).toMatchObject({ ok: true });
    await expect(stuck).rejects.toThrow(/did not answer within 50 ms/);
    calls[0].answer();
    await turn();
    expect(calls[3].reserves.map((r) => r.estimate.tokens)).toEqual([4]);
    calls[3].answer();
    expect(await held).toMatchObject({ ok: true });
    // What the late reserve got is given back in t1's next exchange.
    await turn();
    expect(calls[4].settles).toMatchObject([{ subject, actual: { tokens: 0, dollars: 0 } }]);
    calls[4].answer();
    await b.drain();
  });

  it('marks the keys of settles the store could not take to be seeded again, and releases their reservations in the next exchange', async () => {
    const { store, calls } = recordingStore();
    const lost: string[] = [];
    const b = new LimitBatcher(store, createLogger('silent'), undefined, 2000, (s) => lost.push(s.keyId));
    const other = { ...subject, keyId: 'k2' };
    b.settle({ subject, reservationId: 'held-1', actual: { tokens: 30, dollars: 0.1 } }, () => {});
    b.settle({ subject: other, reservationId: '', actual: { tokens: 5, dollars: 0 } }, () => {});
    await turn();
    calls[0].fail();
    await turn();
    expect(lost).toEqual(['k1', 'k2']);
    // The team's next exchange releases the reservation first (no usage: the records have it), then goes on.
    const next = b.reserve(subject, { tokens: 10, dollars: 0 });
    await turn();
    expect(calls[1].settles).toEqual([{ subject, reservationId: 'held-1', actual: { tokens: 0, dollars: 0 } }]);
    expect(calls[1].reserves.map((r) => r.estimate.tokens)).toEqual([10]);
    calls[1].answer();
    expect(await next).toMatchObject({ ok: true });
    expect(lost).toEqual(['k1', 'k2', 'k1']);
    b.reserve(subject, { tokens: 1, dollars: 0 });
    await turn();
    expect(calls[2].settles).toEqual([]);
    calls[2].answer();
    await b.drain();
  });

  it('releases again the reservations settled in the last seconds once the store may have lost writes', async () => {
    const { store, calls, losses } = recordingStore();
    const b = new LimitBatcher(store, createLogger('silent'));
    const other = { ...subject, keyId: 'k2', teamId: 't2' };
    b.settle({ subject, reservationId: 'a', actual: { tokens: 30, dollars: 0 } }, () => {});
    b.settle({ subject: other, reservationId: 'b', actual: { tokens: 0, dollars: 0 } }, () => {});
    b.settle({ subject, reservationId: '', actual: { tokens: 5, dollars: 0 } }, () => {});
    await turn();
    calls.forEach((c) => c.answer());
    await turn();
    // A restarted master may have brought those reservations back: the teams' next exchanges release them again.
    losses.n++;
    b.reserve(subject, { tokens: 1, dollars: 0 });
    b.reserve(other, { tokens: 1, dollars: 0 });
    await turn();
    expect(calls.slice(2).map((c) => c.settles)).toEqual([
      [{ subject, reservationId: 'a', actual: { tokens: 0, dollars: 0 } }],
      [{ subject: other, reservationId: 'b', actual: { tokens: 0, dollars: 0 } }],
    ]);
    calls.slice(2).forEach((c) => c.answer());
    await turn();
    // Once only.
    losses.n++;
    b.reserve(subject, { tokens: 1, dollars: 0 });
    await turn();
    expect(calls[4].settles).toEqual([]);
    calls[4].answer();
    await b.drain();
  });

  it('sends a settle held back across a loss as a release, its usage left to the seed', async () => {
    const { store, calls, losses } = recordingStore();
    const lost: string[] = [];
    const b = new LimitBatcher(store, createLogger('silent'), undefined, 2000, (s) => lost.push(s.keyId));
    const first = b.reserve(subject, { tokens: 1, dollars: 0 });
    await turn();
    // Queued while the team's exchange is stuck; the store loses its connection before it answers.
    b.settle({ subject, reservationId: 'held', actual: { tokens: 40, dollars: 0.2 } }, () => {});
    await turn();
    losses.n++;
    calls[0].answer();
    await first;
    await turn();
    expect(calls[1].settles).toEqual([{ subject, reservationId: 'held', actual: { tokens: 0, dollars: 0 } }]);
    expect(lost).toEqual(['k1']);
    calls[1].answer();
    await b.drain();
    expect(lost).toEqual(['k1', 'k1']);
  });
});
