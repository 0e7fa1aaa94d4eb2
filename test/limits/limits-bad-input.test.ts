/**
 * Bad input around limits: negative, fractional or absurd values (400, nothing stored), a model pattern that
 * matches nothing (accepted with a warning), a budget passed in the middle of a stream (the stream finishes, the
 * next call is refused), and the 80 % budget alert sent once per month per key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_BODY, eventually, startLimitsEnv, type LimitsEnv } from './limits-env.ts';

let env: LimitsEnv;
beforeAll(async () => {
  env = await startLimitsEnv();
});
afterAll(async () => env?.close());

describe('limit values', () => {
  const bad: [string, Record<string, unknown>][] = [
    ['negative', { requests_per_minute: -1 }],
    ['fractional requests', { requests_per_day: 1.5 }],
    ['absurd dollars', { dollars_per_month: 1e12 }],
    ['absurd tokens', { tokens_per_month: 1e16 }],
    ['a string', { tokens_per_month: '100' }],
    ['an unknown limit', { requests_per_hour: 5 }],
  ];
  it.each(bad)('refuses %s on create and on PATCH with 400, storing nothing', async (_n, limits) => {
    const created = await env.s.api('POST', '/api/v1/keys', { name: 'bad', limits }, { 'x-svc-team': 'lim' });
    expect(created.statusCode).toBe(400);
    expect(created.json().error.code).toBe('validation_failed');
    const k = await env.key({ limits: { requests_per_minute: 5 } });
    const patched = await env.s.api('PATCH', `/api/v1/keys/${k.id}`, { limits });
    expect(patched.statusCode).toBe(400);
    expect((await env.s.api('GET', `/api/v1/keys/${k.id}`)).json().limits).toEqual({ requests_per_minute: 5 });
  });

  it('accepts 0 (nothing allowed) and null (unlimited)', async () => {
    const k = await env.key({ limits: { requests_per_minute: 0, dollars_per_month: null } });
    expect((await env.s.api('GET', `/api/v1/keys/${k.id}`)).json().limits).toEqual({ requests_per_minute: 0 });
    const r = await env.chatCall(k.secret);
    expect(r.status).toBe(429);
    const patched = await env.s.api('PATCH', `/api/v1/keys/${k.id}`, { limits: { requests_per_minute: null } });
    expect(patched.json().limits).toEqual({});
    expect((await env.chatCall(k.secret)).status).toBe(200);
  });

  it('accepts a model pattern that matches nothing, with a warning', async () => {
    const res = await env.s.api('POST', '/api/v1/keys', { name: 'odd', models: ['gtp-4*'] }, { 'x-svc-team': 'lim' });
    expect(res.statusCode).toBe(201);
    expect(res.json().warnings?.[0]).toContain('gtp-4*');
  });
});

describe('a budget passed in the middle of a stream', () => {
  it('lets the stream finish and refuses the next call', async () => {
    const k = await env.key({ limits: { tokens_per_month: 100 } });
    env.chat.script({ slow: { delayMs: 1, events: 150 } });
    const res = await env.chatCall(k.secret, { ...CHAT_BODY, stream: true });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('word149');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    const [row] = await env.usage(k.id, 1);
    expect(Number(row.output_tokens)).toBe(150);
    const next = await env.chatCall(k.secret);
    expect(next.status).toBe(403);
    expect((await next.json()).error.code).toBe('key_tokens_per_month');
  });
});

describe('budget alerts', () => {
  it('notifies the team once per month per key when 80 % of the dollar budget is spent', async () => {
    expect((await env.s.api('PUT', '/api/v1/prices/gpt-4o', { input_per_mtok: 10_000, output_per_mtok: 10_000 })).statusCode).toBe(201);
    const k = await env.key({ limits: { dollars_per_month: 1 } });
    const body = { ...CHAT_BODY, model: 'gpt-4o' };
    const alerts = async () => {
      const r = await env.s.api('GET', '/api/v1/notifications?kind=key.budget_alert&team=lim');
      return (r.json().items as { data: { key: { id: string } } }[]).filter((n) => n.data.key.id === k.id);
    };
    // $0.20 per call: 3 calls = 60 % (no alert), the 4th reaches 80 %.
    for (let i = 0; i < 3; i++) expect((await env.chatCall(k.secret, body)).status).toBe(200);
    await env.usage(k.id, 3);
    await new Promise((r) => setTimeout(r, 100));
    expect(await alerts()).toHaveLength(0);
    expect((await env.chatCall(k.secret, body)).status).toBe(200);
    const sent = await eventually(async () => ((await alerts()).length > 0 ? alerts() : undefined));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: 'key.budget_alert', data: { limit: 'dollars_per_month', budget: 1, threshold: 0.8, percent: 80 } });
    expect(sent[0].data).toMatchObject({ spent: 0.8, month: expect.stringMatching(/^\d{4}-\d\d$/) });
    // More spend in the same month: no second alert.
    await env.chatCall(k.secret, body);
    await new Promise((r) => setTimeout(r, 200));
    expect(await alerts()).toHaveLength(1);
  });

  it('alerts on the token budget too', async () => {
    const k = await env.key({ limits: { tokens_per_month: 50 } });
    expect((await env.chatCall(k.secret)).status).toBe(200);
    expect((await env.chatCall(k.secret, { ...CHAT_BODY, max_tokens: 5 })).status).toBe(200);
    const n = await eventually(async () => {
      const r = await env.s.api('GET', '/api/v1/notifications?kind=key.budget_alert&team=lim');
      const mine = (r.json().items as { data: { key: { id: string }; limit: string } }[]).filter((x) => x.data.key.id === k.id);
      return mine.length ? mine : undefined;
    });
    expect(n).toHaveLength(1);
    expect(n[0].data.limit).toBe('tokens_per_month');
  });
});
