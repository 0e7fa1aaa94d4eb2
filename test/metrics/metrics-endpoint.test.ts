/**
 * GET /metrics against a running node: known gateway, API and ingest traffic, then the scrape parsed and counted
 * exactly; label values stay in their closed sets whatever the clients send; the token rules; SVC_METRICS=off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { createProject, eventEnvelope, post, sentryAuth } from '../ingest/support/ingest-helpers.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { parsePrometheus, total, type Sample } from './prometheus-text.ts';

let s: TestServer;
let good: FakeUpstream;
let broken: FakeUpstream;
let key: string;
let keyId: string;
let goodAccount: string;
let brokenAccount: string;

const chat = (secret: string, model: string, stream = false) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hello' }] }),
  }).then(async (r) => ({ status: r.status, body: await r.text() }));

async function scrape(headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await fetch(`${s.url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

async function usageRows(n: number): Promise<{ input_tokens: number; output_tokens: number; cost_usd: number }[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await s.db.query<{ input_tokens: number; output_tokens: number; cost_usd: number }>('SELECT input_tokens, output_tokens, cost_usd FROM usage_records');
    if (r.rows.length >= n || Date.now() > deadline) return r.rows;
    await new Promise((res) => setTimeout(res, 50));
  }
}

beforeAll(async () => {
  [s, good, broken] = await Promise.all([startTestServer({ listen: true }), startFake('chat', ['gpt-4o-mini']), startFake('chat', ['gpt-4o'])]);
  expect((await s.api('POST', '/api/v1/teams', { name: 'm' })).statusCode).toBe(201);
  const k = await s.api('POST', '/api/v1/keys', { name: 'metrics' }, { 'x-svc-team': 'm' });
  ({ key, id: keyId } = k.json() as { key: string; id: string });
  const account = async (name: string, url: string, models: string[]) => {
    const r = await s.api('POST', '/api/v1/accounts', { name, provider: 'openai', api_key: 'sk-fake-openai-0123456789abcdef', base_url: `${url}/v1`, models });
    expect(r.statusCode, r.body).toBe(201);
    return r.json().id as string;
  };
  goodAccount = await account('good', good.url, ['gpt-4o-mini']);
  brokenAccount = await account('broken', broken.url, ['gpt-4o']);
  expect((await s.api('PUT', '/api/v1/aliases/fast', { models: ['gpt-4o', 'gpt-4o-mini'] })).statusCode).toBeLessThan(300);
});
afterAll(async () => {
  s?.app.server.closeAllConnections();
  await s?.close();
  await Promise.all([good?.close(), broken?.close()]);
});

describe('GET /metrics after known traffic', () => {
  let m: Sample[];
  let limitedKey: string;

  beforeAll(async () => {
    const limited = await s.api('POST', '/api/v1/keys', { name: 'limited', limits: { requests_per_minute: 1 } }, { 'x-svc-team': 'm' });
    limitedKey = limited.json().key as string;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await chat(key, 'gpt-4o-mini')).status);
    for (let i = 0; i < 2; i++) statuses.push((await chat(key, 'gpt-4o-mini', true)).status);
    broken.script({ error: 500 });
    statuses.push((await chat(key, 'fast')).status); // gpt-4o fails with 500, gpt-4o-mini answers
    statuses.push((await chat(key, 'no-such-model')).status); // 404 model_not_found
    statuses.push((await chat('sk-svc-not-a-key', 'gpt-4o-mini')).status); // 401, no key: no call record
    statuses.push((await chat(limitedKey, 'gpt-4o-mini')).status);
    statuses.push((await chat(limitedKey, 'gpt-4o-mini')).status); // 429 key_requests_per_minute
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 404, 401, 200, 429]);
    const p = await createProject(s);
    expect((await post(s, `/api/${p.id}/envelope/`, eventEnvelope({ message: 'boom' }), sentryAuth(p.publicKey))).statusCode).toBe(200);
    await usageRows(9);
    m = await scrape();
  });

  it('counts gateway calls by model, upstream style, account and outcome', () => {
    const calls = (labels: Record<string, string>) => total(m, 'svc_gateway_calls_total', labels);
    // 3 JSON + 2 streamed + the alias call answered by gpt-4o-mini + the limited key's first call.
    expect(calls({ model: 'gpt-4o-mini', upstream_style: 'chat', account: goodAccount, outcome: 'ok' })).toBe(7);
    expect(calls({ model: 'other', upstream_style: 'none', account: 'none', outcome: 'refused' })).toBe(1);
    expect(calls({ model: 'gpt-4o-mini', outcome: 'limited' })).toBe(1);
    expect(calls({})).toBe(9);
    expect(total(m, 'svc_gateway_limit_refusals_total', { code: 'key_requests_per_minute' })).toBe(1);
    expect(total(m, 'svc_gateway_upstream_errors_total', { upstream_style: 'chat', reason: 'status_5xx' })).toBe(1);
    expect(total(m, 'svc_gateway_fallbacks_total', { to: 'model' })).toBe(1);
    expect(total(m, 'svc_gateway_fallbacks_total', { to: 'account' })).toBe(0);
    expect(m.some((x) => x.labels.account === brokenAccount)).toBe(false);
  });

  it('has latency and time-to-first-token histograms', () => {
    expect(total(m, 'svc_gateway_call_duration_seconds_count', { model: 'gpt-4o-mini', upstream_style: 'chat' })).toBe(7);
    expect(total(m, 'svc_gateway_call_duration_seconds_bucket', { model: 'gpt-4o-mini', upstream_style: 'chat', le: '+Inf' })).toBe(7);
    // The limited call never reached an upstream.
    expect(total(m, 'svc_gateway_call_duration_seconds_count', { model: 'gpt-4o-mini', upstream_style: 'none' })).toBe(1);
    expect(total(m, 'svc_gateway_time_to_first_token_seconds_count', { model: 'gpt-4o-mini', upstream_style: 'chat' })).toBe(2);
    expect(total(m, 'svc_gateway_time_to_first_token_seconds_sum')).toBeGreaterThan(0);
  });

  it('counts tokens and cost as the usage records do', async () => {
    const rows = await usageRows(9);
    const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0);
    expect(sum((r) => r.input_tokens)).toBeGreaterThan(0);
    expect(total(m, 'svc_gateway_tokens_total', { kind: 'input' })).toBe(sum((r) => r.input_tokens));
    expect(total(m, 'svc_gateway_tokens_total', { kind: 'output' })).toBe(sum((r) => r.output_tokens));
    expect(total(m, 'svc_gateway_cost_usd_total')).toBeCloseTo(sum((r) => Number(r.cost_usd)), 9);
  });

  it('counts requests by route family, style and status', () => {
    const req = (labels: Record<string, string>) => total(m, 'svc_http_requests_total', labels);
    expect(req({ family: 'gateway', style: 'chat', status: '200' })).toBe(7);
    expect(req({ family: 'gateway', style: 'chat', status: '404' })).toBe(1);
    expect(req({ family: 'gateway', style: 'chat', status: '401' })).toBe(1);
    expect(req({ family: 'gateway', style: 'chat', status: '429' })).toBe(1);
    expect(req({ family: 'ingest', status: '200' })).toBe(1);
    expect(req({ family: 'api', status: '201' })).toBeGreaterThanOrEqual(5);
    expect(total(m, 'svc_http_request_duration_seconds_count', { family: 'gateway' })).toBe(10);
  });

  it('counts ingest outcomes, writers, the pool and the process', () => {
    expect(total(m, 'svc_ingest_outcomes_total', { outcome: 'accepted', category: 'error' })).toBe(1);
    expect(m.some((x) => x.name === 'svc_writer_queue_rows' && x.labels.writer === 'usage')).toBe(true);
    expect(total(m, 'svc_writer_batch_duration_seconds_count', { writer: 'usage' })).toBeGreaterThan(0);
    expect(m.some((x) => x.name === 'process_cpu_user_seconds_total')).toBe(true);
    expect(m.some((x) => x.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    if (s.databaseUrl) expect(total(m, 'svc_db_pool_connections', { state: 'max' })).toBeGreaterThan(0);
  });

  it('keeps label values in closed sets whatever clients send', async () => {
    const before = new Set(m.map((x) => x.labels.model).filter(Boolean));
    for (let i = 0; i < 20; i++) await chat(key, `random-model-${i}-${Math.random()}`);
    await fetch(`${s.url}/v1/chat/completions/${Math.random()}?x=${Math.random()}`, { method: 'POST' });
    await fetch(`${s.url}/no/such/${Math.random()}`);
    const after = await scrape();
    expect(new Set(after.map((x) => x.labels.model).filter(Boolean))).toEqual(before);
    expect(total(after, 'svc_gateway_calls_total', { model: 'other', outcome: 'refused' })).toBe(21);
    const urls = after.filter((x) => x.name === 'svc_http_requests_total').map((x) => x.labels.family);
    expect(new Set(urls)).toEqual(new Set(['gateway', 'api', 'ingest', 'metrics', 'unmatched']));
  });
});

describe('who may scrape', () => {
  const node = async (env: Record<string, string>) => startTestServer({ env });
  const get = (n: TestServer, authorization = '') => n.api('GET', '/metrics', undefined, { authorization });

  it('answers on a loopback HOST without a token, and asks for SVC_METRICS_TOKEN beyond loopback', async () => {
    const wide = await node({ HOST: '0.0.0.0' });
    try {
      const res = await get(wide);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toContain('SVC_METRICS_TOKEN');
    } finally {
      await wide.close();
    }
  });

  it('requires the token whenever it is set', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const n = await node({ HOST: '0.0.0.0', SVC_METRICS_TOKEN: token });
    try {
      expect((await get(n)).statusCode).toBe(401);
      expect((await get(n, 'Bearer wrong-token-0123456789')).json().error.code).toBe('invalid_token');
      const ok = await get(n, `Bearer ${token}`);
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('svc_http_requests_total');
    } finally {
      await n.close();
    }
  });

  it('is not mounted with SVC_METRICS=off', async () => {
    const n = await node({ SVC_METRICS: 'off' });
    try {
      expect((await get(n)).statusCode).toBe(404);
    } finally {
      await n.close();
    }
  });
});

// The key's id is what the call records (and so the metrics' calls) belong to; the secret is never a label.
it('never uses a secret as a label value', async () => {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  expect(text).not.toContain(key);
  expect(text).not.toContain('sk-fake-openai');
  expect(keyId).toMatch(/\w/);
});
