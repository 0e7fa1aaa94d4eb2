/**
 * Rotation across the accounts that serve a model: a conversation sticks to its account (X-Svc-Session, or the
 * hash of its opening) and moves when that account becomes unavailable; a 429 or 5xx before any byte moves the call
 * to the next account, then to the alias's next model; a paused account (or paused family) gets no traffic; new
 * conversations go to the account with the most quota left, within the highest priority.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { applyQuotaRead } from '../../core/ai/subscriptions/apply-quota-read.ts';
import { pauseAccount } from '../../core/ai/subscriptions/pauses.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const clock = new ManualClock(Date.now());
let s: TestServer;
let key: string;
const fakes: Record<string, FakeUpstream> = {};
const ids: Record<string, string> = {};

async function addAccount(name: string, models: string[], extra: Record<string, unknown> = {}): Promise<void> {
  fakes[name] = await startFake('chat');
  const r = await s.api('POST', '/api/v1/accounts', { name, provider: 'openai-compatible', api_key: `sk-${name}-0123456789abcdef`, base_url: `${fakes[name].url}/v1`, models, ...extra });
  expect(r.statusCode, r.body).toBe(201);
  ids[name] = r.json().id;
}

beforeAll(async () => {
  s = await startTestServer({ listen: true, clock });
  await s.api('POST', '/api/v1/teams', { name: 'rot' });
  key = (await s.api('POST', '/api/v1/keys', { name: 'rot' }, { 'x-svc-team': 'rot' })).json().key;
  await addAccount('a', ['pair-*']);
  await addAccount('b', ['pair-*']);
  await addAccount('hi', ['prio-*'], { priority: 10 });
  await addAccount('lo1', ['prio-*']);
  await addAccount('lo2', ['prio-*']);
  await addAccount('first', ['alias-one']);
  await addAccount('second', ['alias-two']);
  await s.api('PUT', '/api/v1/aliases/combo', { models: ['alias-one', 'alias-two'] });
});

afterAll(async () => {
  await s?.close();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
  clock.advance(10 * 60_000); // every cooldown of an earlier test is over
});

const chat = (model: string, text: string, session?: string) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(session ? { 'x-svc-session': session } : {}) },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: text }] }),
  }).then(async (r) => ({ status: r.status, model: r.headers.get('x-svc-model'), body: await r.text() }));
const served = (...names: string[]) => names.map((n) => fakes[n].calls.length);

describe('sticky conversations', () => {
  it('keep a session on one account while new conversations spread', async () => {
    for (let i = 0; i < 6; i++) expect((await chat('pair-1', `turn ${i}`, 'session-1')).status).toBe(200);
    expect(served('a', 'b').sort()).toEqual([0, 6]);
    for (const f of Object.values(fakes)) f.reset();
    for (let i = 0; i < 6; i++) await chat('pair-1', `new conversation ${i}`);
    expect(served('a', 'b')).toEqual([3, 3]);
  });

  it('keep a conversation without a session header by its opening', async () => {
    const opening = { model: 'pair-2', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Plan my day.' }] };
    const longer = { ...opening, messages: [...opening.messages, { role: 'assistant', content: 'Sure.' }, { role: 'user', content: 'More.' }] };
    for (const body of [opening, longer, longer, opening]) {
      const r = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(r.status).toBe(200);
    }
    expect(served('a', 'b').sort()).toEqual([0, 4]);
  });

  it('move a conversation whose account fails, and keep it on the new one', async () => {
    await chat('pair-3', 'start', 'session-3');
    const home = fakes.a.calls.length === 1 ? 'a' : 'b';
    const other = home === 'a' ? 'b' : 'a';
    fakes[home].script({ error: 429, retryAfter: 120 });
    expect((await chat('pair-3', 'next', 'session-3')).status).toBe(200);
    expect(served(home, other)).toEqual([2, 1]);
    clock.advance(121_000);
    for (let i = 0; i < 3; i++) await chat('pair-3', `more ${i}`, 'session-3');
    expect(served(home, other)).toEqual([2, 4]);
  });
});

describe('failover', () => {
  it('moves a call to the next account on a 5xx, and leaves the failing one out for a while', async () => {
    fakes.a.script({ error: 500 });
    // New conversations alternate, so a gets one of the first two; its 500 moves that call to b.
    for (let i = 0; fakes.a.calls.length === 0 && i < 4; i++) expect((await chat('pair-4', `x ${i}`)).status).toBe(200);
    expect(fakes.a.calls.length).toBe(1);
    const b0 = fakes.b.calls.length;
    for (let i = 0; i < 3; i++) expect((await chat('pair-4', `y ${i}`)).status).toBe(200);
    expect(served('a', 'b')).toEqual([1, b0 + 3]);
    clock.advance(61_000);
    for (let i = 0; i < 2; i++) expect((await chat('pair-4', `z ${i}`)).status).toBe(200);
    expect(served('a', 'b')).toEqual([2, b0 + 4]);
  });

  it('answers the upstream 429 when every account refuses, and tries a rate-limited account rather than none', async () => {
    fakes.a.script({ error: 429, retryAfter: 300 });
    fakes.b.script({ error: 429, retryAfter: 300 });
    const r = await chat('pair-8', 'busy');
    expect(r.status).toBe(429);
    expect(served('a', 'b')).toEqual([1, 1]);
    // No alias model is left: the account whose cooldown ends first is asked rather than refusing outright.
    expect((await chat('pair-8', 'busy again')).status).toBe(200);
  });

  it("goes to the alias's next model when every account of the first fails", async () => {
    fakes.first.script({ error: 429, retryAfter: 30 });
    const r = await chat('combo', 'alias');
    expect(r.status).toBe(200);
    expect(r.model).toBe('alias-two');
    // The first model's account is cooling: the next call goes to the second model at once.
    const again = await chat('combo', 'alias again');
    expect(again.model).toBe('alias-two');
    expect(served('first', 'second')).toEqual([1, 2]);
  });
});

describe('pauses and quota', () => {
  it('sends no traffic to a paused account, nor to an account paused for the model family', async () => {
    await pauseAccount(s.ctx, { accountId: ids.a, family: '', until: clock.now() + 3_600_000, windowName: 'five_hour', used: 0.99 });
    for (let i = 0; i < 5; i++) expect((await chat('pair-5', `p ${i}`)).status).toBe(200);
    expect(served('a', 'b')).toEqual([0, 5]);
    clock.advance(3_600_001);
    await s.scheduler.runNow('accounts.resume');
    await pauseAccount(s.ctx, { accountId: ids.b, family: 'pair-6', until: clock.now() + 3_600_000, windowName: 'weekly_pair6', used: 1 });
    for (const f of Object.values(fakes)) f.reset();
    for (let i = 0; i < 4; i++) await chat('pair-6', `q ${i}`);
    for (let i = 0; i < 4; i++) await chat('pair-7', `r ${i}`);
    expect(served('a', 'b')).toEqual([6, 2]);
    clock.advance(3_600_001);
    await s.scheduler.runNow('accounts.resume');
  });

  it('sends new conversations to the account with the most quota left, within the highest priority', async () => {
    await applyQuotaRead(s.ctx, ids.lo1, { windows: [{ name: 'five_hour', family: null, used: 0.9, resetsAt: clock.now() + 3_600_000, windowSeconds: 18_000 }], source: 'headers', error: null });
    await applyQuotaRead(s.ctx, ids.lo2, { windows: [{ name: 'five_hour', family: null, used: 0.1, resetsAt: clock.now() + 3_600_000, windowSeconds: 18_000 }], source: 'headers', error: null });
    for (let i = 0; i < 4; i++) await chat('prio-1', `high ${i}`);
    expect(served('hi', 'lo1', 'lo2')).toEqual([4, 0, 0]);
    for (const f of Object.values(fakes)) f.reset();
    fakes.hi.script({ error: 503 });
    await chat('prio-1', 'first low');
    expect(served('lo1', 'lo2')).toEqual([0, 1]);
    for (let i = 0; i < 9; i++) await chat('prio-1', `low ${i}`);
    const [lo1, lo2] = served('lo1', 'lo2');
    expect(lo1 + lo2).toBe(10);
    expect(lo2).toBeGreaterThanOrEqual(8);
    expect(lo1).toBeGreaterThanOrEqual(1);
  });
});
