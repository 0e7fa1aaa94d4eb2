/**
 * Per-key and team limits through the gateway, as SDK callers see them: 429 with Retry-After for request rates,
 * 403 for spent budgets, in the caller's own error shape, with codes that name the limit and the level.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_BODY, startLimitsEnv, type LimitsEnv } from './limits-env.ts';

let env: LimitsEnv;
beforeAll(async () => {
  env = await startLimitsEnv();
});
afterAll(async () => env?.close());

describe('request-rate limits', () => {
  it('lets exactly requests_per_minute through, then answers 429 with Retry-After in the chat shape', async () => {
    const k = await env.key({ limits: { requests_per_minute: 3 } });
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => env.chatCall(k.secret)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    const refused = await env.chatCall(k.secret);
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: 'key_requests_per_minute', type: expect.any(String) });
    expect(body.error.message).toContain('3 requests per minute');
  });

  it('answers the messages style in its own error shape', async () => {
    const k = await env.key({ limits: { requests_per_day: 1 } });
    expect((await env.messagesCall(k.secret)).status).toBe(200);
    const refused = await env.messagesCall(k.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3600);
    const body = await refused.json();
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('rate_limit_error');
    expect(body.error.message).toContain('1 requests per day');
  });
});

describe('requests used, in GET /api/v1/quota', () => {
  const quota = async (secret: string) => (await fetch(`${env.s.url}/api/v1/quota`, { headers: { authorization: `Bearer ${secret}` } })).json();

  it('counts the calls of the last minute and day against both request limits', async () => {
    const k = await env.key({ limits: { requests_per_minute: 5, requests_per_day: 100 } });
    for (let i = 0; i < 3; i++) expect((await env.chatCall(k.secret)).status).toBe(200);
    const q = await quota(k.secret);
    expect(q).toMatchObject({
      limits: { requests_per_minute: 5, requests_per_day: 100 },
      requests: { last_minute: 3, last_day: 3 },
      remaining: { requests_per_minute: 2, requests_per_day: 97 },
      counters: 'ok',
    });
    // Refused calls take no slot: two more fill the minute, the refused sixth is not counted.
    for (let i = 0; i < 2; i++) expect((await env.chatCall(k.secret)).status).toBe(200);
    expect((await env.chatCall(k.secret)).status).toBe(429);
    expect(await quota(k.secret)).toMatchObject({ requests: { last_minute: 5, last_day: 5 }, remaining: { requests_per_minute: 0, requests_per_day: 95 } });
  });

  it('has no day count without requests_per_day, and no counts without request limits', async () => {
    const minute = await env.key({ limits: { requests_per_minute: 10 } });
    const free = await env.key({ limits: { tokens_per_month: 100_000 } });
    for (let i = 0; i < 2; i++) {
      expect((await env.chatCall(minute.secret)).status).toBe(200);
      expect((await env.chatCall(free.secret)).status).toBe(200);
    }
    expect(await quota(minute.secret)).toMatchObject({ requests: { last_minute: 2, last_day: null }, remaining: { requests_per_minute: 8, requests_per_day: null } });
    expect(await quota(free.secret)).toMatchObject({ requests: { last_minute: null, last_day: null }, remaining: { requests_per_minute: null, requests_per_day: null } });
  });
});

describe('monthly budgets', () => {
  it('reserves prompt + max output tokens, settles to the real usage, and refuses with 403 once spent', async () => {
    const k = await env.key({ limits: { tokens_per_month: 100 } });
    // Reserves ~ body bytes / 4 + max_tokens 10 (about 35); the fake uses 13 + 7 = 20 tokens per call.
    const first = await env.chatCall(k.secret);
    expect(first.status).toBe(200);
    const [row] = await env.usage(k.id, 1);
    expect(Number(row.input_tokens) + Number(row.output_tokens)).toBe(20);
    const quota = await (await fetch(`${env.s.url}/api/v1/quota`, { headers: { authorization: `Bearer ${k.secret}` } })).json();
    expect(quota.spent.tokens).toBe(20);
    expect(quota.in_flight.tokens).toBe(0);
    expect(quota.remaining.tokens).toBe(80);
    let status = 200;
    let calls = 1;
    while (status === 200 && calls < 10) {
      status = (await env.chatCall(k.secret)).status;
      calls++;
    }
    expect(status).toBe(403);
    // 20 per call: after 3 calls (60 spent) a reservation of ~35 still fits, after 4 (80) it does not.
    expect(calls).toBe(5);
    const refused = await env.chatCall(k.secret);
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.error.code).toBe('key_tokens_per_month');
    expect(body.error.message).toMatch(/100 tokens per month.*80 used/);
  });

  it('a smaller max_tokens fits a budget that the default reservation would not', async () => {
    const k = await env.key({ limits: { tokens_per_month: 60 } });
    const noMax = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    const r = await env.chatCall(k.secret, noMax);
    expect(r.status).toBe(403);
    expect((await r.json()).error.message).toContain('lower max_tokens');
    expect((await env.chatCall(k.secret, { ...noMax, max_tokens: 5 })).status).toBe(200);
  });

  it('prices the reservation at list price (or the override) and refuses a spent dollar budget', async () => {
    const put = await env.s.api('PUT', '/api/v1/prices/gpt-4o', { input_per_mtok: 10_000, output_per_mtok: 10_000 });
    expect(put.statusCode, put.body).toBe(201);
    const k = await env.key({ limits: { dollars_per_month: 1 } });
    const body = { ...CHAT_BODY, model: 'gpt-4o' };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await env.chatCall(k.secret, body)).status);
    // $0.01 per token, 20 tokens per call = $0.20; the reservation is about $0.35.
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    const refused = await env.chatCall(k.secret, body);
    expect(refused.status).toBe(403);
    const e = (await refused.json()).error;
    expect(e.code).toBe('key_dollars_per_month');
    expect(e.message).toContain('$1.00 per month');
  });

  it('refuses a model without a price for a key with a dollar budget, rather than count it as free', async () => {
    const acc = await env.s.api('POST', '/api/v1/accounts', { name: 'local', provider: 'openai-compatible', api_key: 'sk-local-0123456789abcdef', base_url: `${env.chat.url}/v1`, models: ['local-llama'] });
    expect(acc.statusCode, acc.body).toBe(201);
    const k = await env.key({ limits: { dollars_per_month: 5 } });
    const body = { ...CHAT_BODY, model: 'local-llama' };
    const refused = await env.chatCall(k.secret, body);
    expect(refused.status).toBe(403);
    const e = (await refused.json()).error;
    expect(e.code).toBe('model_unpriced');
    expect(e.message).toContain('local-llama has no price');
    // A key without a dollar budget is not concerned.
    expect((await env.chatCall((await env.key()).secret, body)).status).toBe(200);
    expect((await env.s.api('PUT', '/api/v1/prices/local-llama', { input_per_mtok: 0, output_per_mtok: 0 })).statusCode).toBe(201);
    expect((await env.chatCall(k.secret, body)).status).toBe(200);
  });

  it('applies the team ai.tokens limit across the team keys, in addition to each key', async () => {
    const team = await env.s.api('POST', '/api/v1/teams', { name: 'tight' });
    expect(team.statusCode).toBe(201);
    const lim = await env.s.api('PUT', `/api/v1/teams/${team.json().id}/limits`, { 'ai.tokens': 70 });
    expect(lim.statusCode, lim.body).toBe(200);
    const mk = async () => (await env.s.api('POST', '/api/v1/keys', { name: `t${Math.random()}` }, { 'x-svc-team': 'tight' })).json().key as string;
    const [a, b] = [await mk(), await mk()];
    expect((await env.chatCall(a)).status).toBe(200);
    expect((await env.chatCall(b)).status).toBe(200);
    const refused = await env.chatCall(a);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('team_ai_tokens');
    expect((await env.chatCall(b)).status).toBe(403);
    // Raising the team limit reaches the proxy at once (the cache is invalidated).
    await env.s.api('PUT', `/api/v1/teams/${team.json().id}/limits`, { 'ai.tokens': 1000 });
    expect((await env.chatCall(b)).status).toBe(200);
  });

  it('refuses one key more than the team ai.keys limit with 422 team_ai_keys', async () => {
    const team = await env.s.api('POST', '/api/v1/teams', { name: 'few' });
    await env.s.api('PUT', `/api/v1/teams/${team.json().id}/limits`, { 'ai.keys': 1 });
    expect((await env.s.api('POST', '/api/v1/keys', { name: 'one' }, { 'x-svc-team': 'few' })).statusCode).toBe(201);
    const more = await env.s.api('POST', '/api/v1/keys', { name: 'two' }, { 'x-svc-team': 'few' });
    expect(more.statusCode).toBe(422);
    expect(more.json().error).toMatchObject({ code: 'team_ai_keys', details: { limit: 'ai.keys', level: 'team' } });
  });
});
