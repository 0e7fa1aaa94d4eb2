/**
 * The limit stores' shared suite: every implementation must pass it the same way. Run by limit-store.test.ts
 * (memory, one Redis) and test/scale/redis-cluster.test.ts (a Redis Cluster).
 */
import { expect, it } from 'vitest';
import { randomHex } from '../ids.ts';
import type { LimitStore, LimitSubject } from './limit-store.ts';

/** A store, and a way to let time pass: the memory store reads an injected clock, Redis its own time. */
export interface MadeStore {
  store: LimitStore;
  pass(ms: number): Promise<void>;
}

export const subject = (key: LimitSubject['key'], team?: number): LimitSubject => ({ keyId: `k${randomHex(3)}`, teamId: `t${randomHex(3)}`, month: '2026-11', key, teamTokensPerMonth: team });
const none = { tokens: 0, dollars: 0 };

export function limitStoreCases(made: () => MadeStore): void {
  const make = () => made().store;
  it('lets exactly the requests-per-minute limit through under concurrency, then says when to retry', async () => {
    const store = make();
    const s = subject({ requestsPerMinute: 7 });
    const results = await Promise.all(Array.from({ length: 30 }, () => store.reserve(s, none)));
    expect(results.filter((r) => r.ok)).toHaveLength(7);
    const refused = results.find((r) => !r.ok);
    expect(refused).toMatchObject({ ok: false, code: 'key_requests_per_minute', limit: 7 });
    if (refused && !refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(0);
  });

  it('says when it is ready', async () => {
    expect(await make().ready(2000)).toBe(true);
  });

  it('counts the minute inside the day when both request limits are set', async () => {
    const store = make();
    const s = subject({ requestsPerMinute: 2, requestsPerDay: 100 });
    for (let i = 0; i < 2; i++) expect((await store.reserve(s, none)).ok).toBe(true);
    const r = await store.reserve(s, none);
    expect(r).toMatchObject({ ok: false, code: 'key_requests_per_minute', limit: 2, used: 2 });
    if (!r.ok) expect(r.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('reserves several calls of several keys, teams and months at once, each seeing the ones before it', async () => {
    const store = make();
    const a = subject({ requestsPerMinute: 2, tokensPerMonth: 250 }, 1000);
    const b = { ...a, keyId: `k${randomHex(3)}`, key: {} };
    const c = subject({ dollarsPerMonth: 1 });
    const est = { tokens: 100, dollars: 0.4 };
    const r = await store.reserveMany([
      { subject: a, estimate: est }, { subject: c, estimate: est }, { subject: a, estimate: est }, { subject: a, estimate: est },
      { subject: b, estimate: est }, { subject: c, estimate: est }, { subject: c, estimate: est }, { subject: { ...a, month: '2026-12' }, estimate: est },
    ]);
    expect(r.map((x) => (x.ok ? 'ok' : x.code))).toEqual([
      'ok', 'ok', 'ok', 'key_requests_per_minute', 'ok', 'ok', 'key_dollars_per_month', 'key_requests_per_minute',
    ]);
    expect(await store.spend(a.keyId, a.teamId, a.month)).toMatchObject({ keyTokensInFlight: 200 });
    expect(await store.spend(b.keyId, b.teamId, b.month)).toMatchObject({ keyTokensInFlight: 100 });
    // a's budget: 200 in flight + 100 more > 250
    expect(await store.reserveMany([{ subject: { ...a, key: { tokensPerMonth: 250 } }, estimate: est }])).toMatchObject([{ ok: false, code: 'key_tokens_per_month' }]);
  });

  it('checks the daily window too', async () => {
    const store = make();
    const s = subject({ requestsPerMinute: 100, requestsPerDay: 3 });
    for (let i = 0; i < 3; i++) expect((await store.reserve(s, none)).ok).toBe(true);
    expect(await store.reserve(s, none)).toMatchObject({ ok: false, code: 'key_requests_per_day' });
  });

  it('counts the admitted calls of the last minute and day, not the refused ones, without changing them', async () => {
    const store = make();
    const s = subject({ requestsPerMinute: 5, requestsPerDay: 100 });
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 0, lastDay: 0 });
    const r = await Promise.all(Array.from({ length: 7 }, () => store.reserve(s, none)));
    expect(r.filter((x) => x.ok)).toHaveLength(5);
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 5, lastDay: 5 });
    expect(await store.requests(s.keyId, s.teamId, s.key)).toEqual({ lastMinute: 5, lastDay: 5 });
  });

  it('counts the minute inside the day with requests_per_day only, and no day without it', async () => {
    const store = make();
    const day = subject({ requestsPerDay: 10 });
    const minute = subject({ requestsPerMinute: 10 });
    const free = subject({ tokensPerMonth: 1000 });
    for (let i = 0; i < 3; i++) for (const s of [day, minute, free]) expect((await store.reserve(s, none)).ok).toBe(true);
    expect(await store.requests(day.keyId, day.teamId, day.key)).toEqual({ lastMinute: 3, lastDay: 3 });
    expect(await store.requests(minute.keyId, minute.teamId, minute.key)).toEqual({ lastMinute: 3, lastDay: null });
    expect(await store.requests(free.keyId, free.teamId, free.key)).toEqual({ lastMinute: null, lastDay: null });
  });

  it('reserves tokens against spent plus in flight, exactly, and settles to real usage', async () => {
    const store = make();
    const s = subject({ tokensPerMonth: 1000 });
    const results = await Promise.all(Array.from({ length: 10 }, () => store.reserve(s, { tokens: 300, dollars: 0 })));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    let spend = await store.spend(s.keyId, s.teamId, s.month);
    expect(spend.keyTokensInFlight).toBe(900);
    for (const r of results) if (r.ok) await store.settle(s, r.reservationId, { tokens: 100, dollars: 0 });
    spend = await store.spend(s.keyId, s.teamId, s.month);
    expect(spend).toMatchObject({ keyTokens: 300, keyTokensInFlight: 0, teamTokens: 300 });
    const more = await Promise.all(Array.from({ length: 5 }, () => store.reserve(s, { tokens: 300, dollars: 0 })));
    expect(more.filter((r) => r.ok)).toHaveLength(2);
  });

  it('refuses once the dollar budget is spent and names the limit', async () => {
    const store = make();
    const s = subject({ dollarsPerMonth: 1.5 });
    const r = await store.reserve(s, { tokens: 10, dollars: 0.4 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(await store.settle(s, r.reservationId, { tokens: 10, dollars: 1.5 })).toMatchObject({ keyDollars: 1.5, keyTokens: 10 });
    expect(await store.reserve(s, { tokens: 1, dollars: 0.01 })).toMatchObject({ ok: false, code: 'key_dollars_per_month', limit: 1.5, used: 1.5 });
  });

  it('applies the team token limit across the team keys', async () => {
    const store = make();
    const a = subject({}, 500);
    const b = { ...a, keyId: `k${randomHex(3)}` };
    const r = await store.reserve(a, { tokens: 400, dollars: 0 });
    expect(r.ok).toBe(true);
    expect(await store.reserve(b, { tokens: 200, dollars: 0 })).toMatchObject({ ok: false, code: 'team_ai_tokens', limit: 500 });
    if (r.ok) await store.settle(a, r.reservationId, { tokens: 50, dollars: 0 });
    expect((await store.reserve(b, { tokens: 200, dollars: 0 })).ok).toBe(true);
  });

  it('seeds spent totals from the records without ever lowering them', async () => {
    const store = make();
    const s = subject({ tokensPerMonth: 1000, dollarsPerMonth: 10 }, 5000);
    await store.seed(s, { tokens: 900, dollars: 2.5 }, 4000);
    expect(await store.spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 900, keyDollars: 2.5, teamTokens: 4000 });
    expect(await store.reserve(s, { tokens: 200, dollars: 0 })).toMatchObject({ ok: false, code: 'key_tokens_per_month', used: 900 });
    await store.seed(s, { tokens: 100, dollars: 0.5 }, 10);
    expect(await store.spend(s.keyId, s.teamId, s.month)).toMatchObject({ keyTokens: 900, keyDollars: 2.5, teamTokens: 4000 });
    const r = await store.reserve(s, { tokens: 50, dollars: 0.1 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(await store.settle(s, r.reservationId, { tokens: 40, dollars: 0.25 })).toEqual({ keyTokens: 940, keyDollars: 2.75, teamTokens: 4040 });
  });

  it('settles several calls of several keys, teams and months at once, in order', async () => {
    const store = make();
    const a = subject({ tokensPerMonth: 1000 }, 1000);
    const b = { ...a, keyId: `k${randomHex(3)}` };
    const c = subject({});
    const d = { ...a, month: '2026-12' };
    const ra = await store.reserve(a, { tokens: 100, dollars: 1 });
    const rb = await store.reserve(b, { tokens: 100, dollars: 1 });
    if (!ra.ok || !rb.ok) throw new Error('reserve failed');
    const totals = await store.settleMany([
      { subject: a, reservationId: ra.reservationId, actual: { tokens: 10, dollars: 0.1 } },
      { subject: c, reservationId: '', actual: { tokens: 5, dollars: 0.5 } },
      { subject: b, reservationId: rb.reservationId, actual: { tokens: 20, dollars: 0.2 } },
      { subject: d, reservationId: '', actual: { tokens: 1, dollars: 0 } },
    ]);
    expect(totals).toEqual([
      { keyTokens: 10, keyDollars: 0.1, teamTokens: 30 },
      { keyTokens: 5, keyDollars: 0.5, teamTokens: 5 },
      { keyTokens: 20, keyDollars: 0.2, teamTokens: 30 },
      { keyTokens: 1, keyDollars: 0, teamTokens: 1 },
    ]);
    expect(await store.spend(a.keyId, a.teamId, a.month)).toMatchObject({ keyTokensInFlight: 0, keyDollarsInFlight: 0, teamTokens: 30 });
    // Settling a reservation twice releases it once.
    await store.settle(a, ra.reservationId, { tokens: 0, dollars: 0 });
    expect((await store.spend(a.keyId, a.teamId, a.month)).keyTokensInFlight).toBe(0);
  });

  it('counts a settle without a reservation (nothing to release)', async () => {
    const store = make();
    const s = subject({});
    expect(await store.settle(s, '', { tokens: 7, dollars: 0.5 })).toEqual({ keyTokens: 7, keyDollars: 0.5, teamTokens: 7 });
  });

  it('releases reservations of calls that never settled once they expire', async () => {
    const { store, pass } = made();
    const s = subject({ tokensPerMonth: 100 });
    expect((await store.reserve(s, { tokens: 100, dollars: 0 }, 30)).ok).toBe(true);
    expect((await store.reserve(s, { tokens: 1, dollars: 0 })).ok).toBe(false);
    await pass(60);
    expect((await store.reserve(s, { tokens: 1, dollars: 0 })).ok).toBe(true);
    expect((await store.spend(s.keyId, s.teamId, s.month)).keyTokensInFlight).toBe(1);
  });

  it('releases an expired reservation of another key and month of the team when the team next calls', async () => {
    const { store, pass } = made();
    const a = subject({ tokensPerMonth: 1000 }, 5000);
    const b = { ...a, keyId: `k${randomHex(3)}`, month: '2026-12' };
    expect((await store.reserve(a, { tokens: 300, dollars: 0.3 }, 30)).ok).toBe(true);
    expect(await store.spend(a.keyId, a.teamId, a.month)).toMatchObject({ keyTokensInFlight: 300, keyDollarsInFlight: 0.3 });
    await pass(60);
    expect((await store.reserve(b, { tokens: 10, dollars: 0 })).ok).toBe(true);
    expect(await store.spend(a.keyId, a.teamId, a.month)).toMatchObject({ keyTokensInFlight: 0, keyDollarsInFlight: 0 });
    // The team's tokens in flight for a's month are released too: a full team budget fits again.
    expect((await store.reserve(a, { tokens: 1000, dollars: 0 })).ok).toBe(true);
  });
}
