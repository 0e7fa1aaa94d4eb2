/**
 * Compression through the running gateway (issue 13): official SDKs and plain HTTP against the fake upstreams.
 * `off` passes the client's bytes, `audit-only` sends them unchanged and records what `on` would have saved, `on`
 * sends a compressed history with every tool pair intact and the answer unchanged, the precedence of instance,
 * model rule, team, key and header, and prefix stability over a 100-turn replay seen at the upstream.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compressionOf } from '../../proxy/compression/compression-service.ts';
import { startGatewayEnv, type GatewayEnv } from '../gateway/gateway-env.ts';
import { DEFAULT_SESSION, generateSession } from './agent-session.ts';
import { messagesToolIds, sessionBody } from './session-wire.ts';
import { runSvc } from '../cli/run-svc.ts';
import { ADMIN_TOKEN } from '../support/test-server.ts';

let g: GatewayEnv;
const session = generateSession({ ...DEFAULT_SESSION, seed: 7, rounds: 50, fileLines: [20, 120], testLogLines: [20, 150] });
const TURNS = session.conversation.turns.length;
/** The session is about 45 k tokens of short outputs: the lossy steps start at 16 k (64 k by default) on outputs past 1 k (2 k). */
const RULES = [{ pattern: 'claude-*', lossy_at_tokens: 16_000, huge_output_tokens: 1_000 }];

beforeAll(async () => {
  g = await startGatewayEnv();
});
afterAll(async () => g?.close());
beforeEach(async () => {
  g.messages.reset();
  g.chat.reset();
  await setCompression({ mode: 'off' });
  await g.s.api('PUT', '/api/v1/teams/gw/compression', { mode: null });
  await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: null });
});

async function setCompression(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await g.s.api('PUT', '/api/v1/settings/compression', body);
  expect(res.statusCode, res.body).toBe(200);
  // The proxy reloads the dropped settings in the background; wait for that load.
  await compressionOf(g.s.ctx).settings.loaded();
  return res.json();
}

/** A messages call with a raw body; what the fake received and the answer. */
async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${g.s.url}/v1/messages`, {
    method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': g.key, 'anthropic-version': '2023-06-01', ...headers },
  });
  const answer = await res.text();
  return { res, answer, upstream: g.messages.calls.at(-1) };
}

const bigBody = (model = 'claude-sonnet-4-6') => JSON.stringify(sessionBody(session, TURNS, 'messages', model, { max_tokens: 512 }));

async function records(n: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await g.s.db.query<{ mode: string; tokens_before: number; tokens_after: number; model: string; level: number }>(
      'SELECT mode, tokens_before, tokens_after, model, level FROM compression_records WHERE key_id = $1 ORDER BY at, record_id', [g.keyId]);
    if (r.rows.length >= n || Date.now() > deadline) return r.rows;
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('compression settings API', () => {
  it('shows the defaults, keeps rules and warns about a pattern that matches no model', async () => {
    const shown = await g.s.api('GET', '/api/v1/settings/compression');
    expect(shown.json()).toMatchObject({ mode: 'off', keep_last_turns: 2, rules: [] });
    const set = await setCompression({ mode: 'on', rules: [{ pattern: 'claude-*', mode: 'audit-only', min_tokens: 2000 }, { pattern: 'no-such-model-*' }] });
    expect(set).toMatchObject({ mode: 'on', rules: [{ pattern: 'claude-*', mode: 'audit-only', min_tokens: 2000 }, { pattern: 'no-such-model-*' }] });
    expect(set.warnings).toEqual([expect.stringContaining('no-such-model-*')]);
    const bad = await g.s.api('PUT', '/api/v1/settings/compression', { mode: 'max' });
    expect(bad.statusCode).toBe(400);
    const badPattern = await g.s.api('PUT', '/api/v1/settings/compression', { mode: 'on', rules: [{ pattern: 'a b' }] });
    expect(badPattern.json()).toMatchObject({ error: { code: 'validation_failed' } });
  });

  it('refuses non-superusers', async () => {
    const res = await g.s.api('GET', '/api/v1/settings/compression', undefined, { authorization: `Bearer ${g.key}` });
    expect(res.statusCode).toBe(401);
  });

  it('keeps a team and a key mode (null inherits)', async () => {
    expect((await g.s.api('PUT', '/api/v1/teams/gw/compression', { mode: 'audit-only' })).json()).toMatchObject({ mode: 'audit-only' });
    expect((await g.s.api('GET', '/api/v1/teams/gw/compression')).json()).toMatchObject({ mode: 'audit-only' });
    const k = await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: 'on' });
    expect(k.json()).toMatchObject({ compression: 'on' });
    expect((await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: 'sometimes' })).statusCode).toBe(400);
  });
});

describe('off, audit-only and on through the gateway', () => {
  it('off passes the client bytes through unchanged and says nothing', async () => {
    const body = bigBody();
    const { res, upstream } = await post(body);
    expect(res.status).toBe(200);
    expect(upstream?.raw).toBe(body);
    expect(res.headers.get('x-svc-compression')).toBeNull();
  });

  it('audit-only sends the same bytes and records what on would have saved', async () => {
    await setCompression({ mode: 'audit-only', rules: RULES });
    const body = bigBody();
    const { res, answer, upstream } = await post(body);
    expect(res.status, answer).toBe(200);
    expect(upstream?.raw).toBe(body);
    expect(res.headers.get('x-svc-compression')).toBe('mode=audit-only');
    const [row] = await records(1);
    expect(row).toMatchObject({ mode: 'audit-only', model: 'claude-sonnet-4-6' });
    expect(row.tokens_after).toBeLessThan(row.tokens_before * 0.8);
  });

  it('on sends fewer tokens with every tool pair intact and the answer unchanged (anthropic SDK, same style)', async () => {
    await setCompression({ mode: 'on', rules: RULES });
    const client = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
    const params = sessionBody(session, TURNS, 'messages', 'claude-sonnet-4-6', { max_tokens: 512 }) as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const streamed = async (headers: Record<string, string>) => {
      const stream = client.messages.stream(params, { headers });
      let text = '';
      stream.on('text', (t) => (text += t));
      const final = await stream.finalMessage();
      return { text, final, response: (await stream.withResponse()).response };
    };
    // The same request uncompressed (the header lowers the mode) gives the reference answer.
    const plain = await streamed({ 'x-svc-compress': 'off' });
    const { text, final, response } = await streamed({});
    expect(text).toBe(plain.text);
    expect(final.content).toEqual(plain.final.content);
    expect(final.usage).toEqual(plain.final.usage);
    const sent = g.messages.calls.at(-1)!;
    expect(sent.raw.length).toBeLessThan(JSON.stringify(params).length * 0.8);
    expect(messagesToolIds(sent.body as { messages: { content: unknown }[] })).toEqual(messagesToolIds(params as unknown as { messages: { content: unknown }[] }));
    for (const span of session.spans) expect(sent.raw).toContain(span);
    const header = response.headers.get('x-svc-compression') ?? '';
    const m = /^mode=on; before=(\d+); after=(\d+); estimated$/.exec(header);
    expect(m, header).not.toBeNull();
    expect(Number(m![2])).toBeLessThan(Number(m![1]));
  });

  it('on compresses a chat client translated to a messages upstream (openai SDK)', async () => {
    await setCompression({ mode: 'on', rules: RULES });
    const client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const params = sessionBody(session, TURNS, 'chat', 'claude-sonnet-4-6') as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { data, response } = await client.chat.completions.create(params).withResponse();
    expect(data.choices[0].message).toBeDefined();
    expect(response.headers.get('x-svc-compression')).toMatch(/^mode=on; /);
    const sent = g.messages.calls.at(-1)!;
    const uncompressed = JSON.stringify(sessionBody(session, TURNS, 'messages', 'claude-sonnet-4-6'));
    expect(sent.raw.length).toBeLessThan(uncompressed.length * 0.8);
    expect(messagesToolIds(sent.body as { messages: { content: unknown }[] })).toEqual(messagesToolIds(JSON.parse(uncompressed)));
  });
});

describe('a conversation the compressor cannot read', () => {
  it('goes up uncompressed, as the client sent it, and the answer says so in X-Svc-Warning', async () => {
    await setCompression({ mode: 'on' });
    const body = JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 5 }] });
    const { res, upstream } = await post(body);
    expect(upstream?.raw).toBe(body);
    expect(res.headers.get('x-svc-warning')).toContain('The conversation was sent uncompressed');
    expect(res.headers.get('x-svc-compression')).toBeNull();
  });

  it('a same-style conversation with a block the gateway cannot re-encode goes up as sent', async () => {
    await setCompression({ mode: 'on', rules: RULES });
    const body = sessionBody(session, TURNS, 'messages', 'claude-sonnet-4-6', { max_tokens: 16 }) as { messages: { content: unknown[] }[] };
    body.messages[1].content.push({ type: 'container_upload', file_id: 'file_1' });
    const raw = JSON.stringify(body);
    const { res, upstream } = await post(raw);
    expect(upstream?.raw).toBe(raw);
    expect(res.headers.get('x-svc-warning')).toContain('cannot re-encode');
  });

  it('a server tool among the tools does not stop compression, and stays in the request', async () => {
    await setCompression({ mode: 'on', rules: RULES });
    const body = sessionBody(session, TURNS, 'messages', 'claude-sonnet-4-6', { max_tokens: 16 }) as { tools: unknown[] };
    body.tools.push({ type: 'web_search_20250305', name: 'web_search', max_uses: 5 });
    const raw = JSON.stringify(body);
    const { res, upstream } = await post(raw);
    expect(res.headers.get('x-svc-compression')).toMatch(/^mode=on; /);
    expect(res.headers.get('x-svc-warning')).toBeNull();
    expect(upstream!.raw.length).toBeLessThan(raw.length * 0.8);
    expect((upstream!.body as { tools: unknown[] }).tools).toContainEqual({ type: 'web_search_20250305', name: 'web_search', max_uses: 5 });
  });
});

describe('precedence: the lowest of instance, rule, team and key; the header only lowers', () => {
  const modeOf = async (model = 'claude-sonnet-4-6', headers: Record<string, string> = {}) => {
    const body = bigBody(model);
    const { res, upstream } = await post(body, headers);
    expect(res.status).toBe(200);
    const h = res.headers.get('x-svc-compression');
    const mode = h === null ? 'off' : /^mode=([a-z-]+)/.exec(h)![1];
    // What went upstream agrees with the mode: the client's bytes unless on.
    if (mode !== 'on') expect(upstream?.raw).toBe(body);
    else expect(upstream!.raw.length).toBeLessThan(body.length);
    return mode;
  };

  it('instance ceiling: off beats everything, audit-only caps on', async () => {
    await g.s.api('PUT', '/api/v1/teams/gw/compression', { mode: 'on' });
    await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: 'on' });
    expect(await modeOf('claude-sonnet-4-6', { 'x-svc-compress': 'on' })).toBe('off');
    await setCompression({ mode: 'audit-only' });
    expect(await modeOf('claude-sonnet-4-6', { 'x-svc-compress': 'on' })).toBe('audit-only');
  });

  it('team and key lower the instance mode, each on its own', async () => {
    await setCompression({ mode: 'on' });
    expect(await modeOf()).toBe('on');
    await g.s.api('PUT', '/api/v1/teams/gw/compression', { mode: 'audit-only' });
    expect(await modeOf()).toBe('audit-only');
    await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: 'off' });
    expect(await modeOf()).toBe('off');
    await g.s.api('PUT', '/api/v1/teams/gw/compression', { mode: null });
    expect(await modeOf()).toBe('off');
    await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: 'audit-only' });
    expect(await modeOf()).toBe('audit-only');
  });

  it('a model rule lowers the mode of the models it matches only', async () => {
    await setCompression({ mode: 'on', rules: [{ pattern: 'claude-haiku-*', mode: 'off' }] });
    expect(await modeOf('claude-haiku-4-5')).toBe('off');
    expect(await modeOf('claude-sonnet-4-6')).toBe('on');
  });

  it('the header lowers but never raises, and an unknown value is refused in the caller style', async () => {
    await setCompression({ mode: 'on' });
    expect(await modeOf('claude-sonnet-4-6', { 'x-svc-compress': 'audit-only' })).toBe('audit-only');
    expect(await modeOf('claude-sonnet-4-6', { 'x-svc-compress': 'off' })).toBe('off');
    await g.s.api('PATCH', `/api/v1/keys/${g.keyId}`, { compression: 'audit-only' });
    expect(await modeOf('claude-sonnet-4-6', { 'x-svc-compress': 'on' })).toBe('audit-only');
    const calls = g.messages.calls.length;
    const { res, answer } = await post(bigBody(), { 'x-svc-compress': 'maximum' });
    expect(res.status).toBe(400);
    expect(JSON.parse(answer)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('X-Svc-Compress') } });
    expect(g.messages.calls.length).toBe(calls);
  });
});

describe('prefix stability over a 100-turn replay', () => {
  it('each request starts with the previous one at the upstream, but for one rewrite per 25 % of growth', async () => {
    await setCompression({ mode: 'on', rules: [{ pattern: 'claude-*', min_tokens: 2000 }] });
    type Body = { messages: unknown[] };
    let prev: { body: Body; size: number } | undefined;
    let breaks = 0;
    let compressed = 0;
    for (let n = 1; n <= TURNS; n += 2) {
      const body = JSON.stringify(sessionBody(session, n, 'messages', 'claude-sonnet-4-6', { max_tokens: 64 }));
      const { res, upstream } = await post(body);
      expect(res.status).toBe(200);
      const sent = upstream!.body as Body;
      if (upstream!.raw.length < body.length) compressed++;
      if (prev) {
        const kept = prev.body.messages.every((m, i) => JSON.stringify(m) === JSON.stringify(sent.messages[i]));
        if (!kept) breaks++;
      }
      prev = { body: sent, size: body.length };
    }
    expect(compressed).toBeGreaterThan(10);
    expect(breaks).toBeGreaterThan(0);
    // From 2 000 tokens to the session's size in levels of 25 %: one rewrite per level at most.
    const levels = Math.ceil(Math.log(prev!.size / 4 / 2000) / Math.log(1.25)) + 1;
    expect(breaks).toBeLessThanOrEqual(levels);
  });
});

describe('usage records and the usage API', () => {
  it('keep the tokens before and after compression of each call and show them, with what was saved (official SDKs, svc ai usage)', async () => {
    await setCompression({ mode: 'on', rules: RULES });
    const headerOf = (h: string | null) => {
      const m = /^mode=on; before=(\d+); after=(\d+); estimated$/.exec(h ?? '');
      expect(m, h ?? '').not.toBeNull();
      return { before: Number(m![1]), after: Number(m![2]) };
    };
    const anthropic = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
    const messagesParams = sessionBody(session, TURNS, 'messages', 'claude-sonnet-4-6', { max_tokens: 64 }) as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const viaMessages = headerOf((await anthropic.messages.create(messagesParams).withResponse()).response.headers.get('x-svc-compression'));
    const openai = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const chatParams = sessionBody(session, TURNS, 'chat', 'claude-sonnet-4-6') as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const viaChat = headerOf((await openai.chat.completions.create(chatParams).withResponse()).response.headers.get('x-svc-compression'));
    expect(viaMessages.after).toBeLessThan(viaMessages.before);
    expect(viaChat.after).toBeLessThan(viaChat.before);
    await anthropic.messages.create(messagesParams, { headers: { 'x-svc-compress': 'audit-only' } });
    await anthropic.messages.create(messagesParams, { headers: { 'x-svc-compress': 'off' } });

    // The record is durable before the answer's last byte: the four calls' records, in order.
    type Row = { compression_mode: string | null; compression_tokens_before: number | null; compression_tokens_after: number | null };
    const last = await g.s.db.query<Row>(
      'SELECT compression_mode, compression_tokens_before, compression_tokens_after FROM usage_records WHERE key_id = $1 ORDER BY at DESC, id DESC LIMIT 4', [g.keyId]);
    expect(last.rows.reverse()).toEqual([
      { compression_mode: 'on', compression_tokens_before: viaMessages.before, compression_tokens_after: viaMessages.after },
      { compression_mode: 'on', compression_tokens_before: viaChat.before, compression_tokens_after: viaChat.after },
      { compression_mode: 'audit-only', compression_tokens_before: null, compression_tokens_after: null },
      { compression_mode: null, compression_tokens_before: null, compression_tokens_after: null },
    ]);

    // GET /api/v1/usage sums the records' figures: every call of this key compressed in `on` so far.
    const all = (await g.s.db.query<{ calls: number; before: number; after: number }>(
      "SELECT count(*)::int AS calls, sum(compression_tokens_before)::int AS before, sum(compression_tokens_after)::int AS after FROM usage_records WHERE key_id = $1 AND compression_mode = 'on'", [g.keyId])).rows[0];
    const usage = (await g.s.api('GET', `/api/v1/usage?days=1&group_by=model&key=${g.keyId}`)).json();
    expect(usage.totals.compression.on).toMatchObject({ calls: all.calls, tokens_before: all.before, tokens_after: all.after, tokens_saved: all.before - all.after });
    expect(usage.totals.compression.on.dollars_saved).toBeGreaterThan(0);
    const sonnet = usage.groups.find((x: { model: string }) => x.model === 'claude-sonnet-4-6');
    expect(sonnet.compression.on).toEqual(usage.totals.compression.on);

    const cli = await runSvc(['ai', 'usage', '--days', '1', '--by', 'model', '--key', g.keyId], { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: g.s.url, SVC_TOKEN: ADMIN_TOKEN });
    expect(cli.code, cli.stderr).toBe(0);
    const n = (v: number) => v.toLocaleString('en-US');
    const row = cli.stdout.split('\n').find((l) => l.startsWith('claude-sonnet-4-6')) ?? '';
    expect(cli.stdout).toMatch(/COMPRESSED +BEFORE → AFTER +SAVED/);
    expect(row).toContain(`${n(all.before)} → ${n(all.after)}`);
    expect(row).toContain(`${n(all.before - all.after)} (${Math.round(((all.before - all.after) / all.before) * 100)} %)`);
  });
});

describe('savings report', () => {
  it('shows tokens and dollars saved per key and model, in on and in audit-only, and the cache breaks', async () => {
    await setCompression({ mode: 'on', rules: RULES });
    await post(bigBody());
    await post(bigBody(), { 'x-svc-compress': 'audit-only' });
    const deadline = Date.now() + 10_000;
    let items: { group: string; mode: string; calls: number; tokens_saved: number; dollars_saved: number; dollars_saved_uncached: number; cache_breaks: number }[] = [];
    for (;;) {
      const res = await g.s.api('GET', '/api/v1/compression/report?days=1&group_by=key');
      expect(res.statusCode, res.body).toBe(200);
      items = res.json().items;
      // Every call is in usage_records before its answer ends; its compression record is written after it.
      const calls = (await g.s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_records WHERE key_id = $1 AND compression_mode IS NOT NULL", [g.keyId])).rows[0].n;
      if (items.reduce((n, i) => n + i.calls, 0) >= calls && calls > 0 && items.some((i) => i.mode === 'audit-only') && items.some((i) => i.mode === 'on')) break;
      if (Date.now() > deadline) throw new Error(`the report did not show both modes: ${JSON.stringify(items)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const mode of ['on', 'audit-only']) {
      const it = items.find((i) => i.mode === mode && i.group === g.keyId)!;
      expect(it.tokens_saved).toBeGreaterThan(0);
      expect(it.dollars_saved).toBeGreaterThan(0);
      expect(it.dollars_saved_uncached).toBeGreaterThan(it.dollars_saved);
    }
    // The replay above rewrote its cached history a few times, each counted.
    expect(items.find((i) => i.mode === 'on')!.cache_breaks).toBeGreaterThan(0);
    // The usage analytics carry the same savings, in total and per key.
    const usage = (await g.s.api('GET', `/api/v1/usage?days=1&group_by=key&key=${g.keyId}`)).json();
    const report = (mode: string) => items.find((i) => i.mode === mode && i.group === g.keyId)!;
    for (const [mode, field] of [['on', 'on'], ['audit-only', 'audit_only']] as const) {
      expect(usage.totals.compression[field]).toMatchObject({ calls: report(mode).calls, tokens_saved: report(mode).tokens_saved, dollars_saved: report(mode).dollars_saved });
      expect(usage.groups[0].compression[field].tokens_saved).toBe(report(mode).tokens_saved);
    }
    const cli = await runSvc(['ai', 'usage', '--days', '1', '--key', g.keyId], { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: g.s.url, SVC_TOKEN: ADMIN_TOKEN });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/Compression saved: [\d,]+ input tokens \(\d+ %\) over \d+ calls \([\d,]+ → [\d,]+\), \$[\d.]+ to \$[\d.]+/);
    expect(cli.stdout).toContain('Compression would have saved (audit-only):');
    const byModel = (await g.s.api('GET', '/api/v1/compression/report?days=1&group_by=model')).json();
    expect(byModel.items.map((i: { group: string }) => i.group)).toContain('claude-sonnet-4-6');
    // Each cache break is priced: the history its step rewrote, at Claude Sonnet's cache write ($3.75 per million)
    // less its cache read ($0.30), and taken off what was saved.
    const sonnet = byModel.items.find((i: { group: string; mode: string }) => i.group === 'claude-sonnet-4-6' && i.mode === 'on') as
      { cache_breaks: number; tokens_rewritten: number; dollars_cache_rewrites: number; dollars_saved: number; dollars_saved_net: number };
    expect(sonnet.cache_breaks).toBeGreaterThan(0);
    expect(sonnet.tokens_rewritten).toBeGreaterThan(sonnet.cache_breaks * 1000);
    expect(sonnet.dollars_cache_rewrites).toBeCloseTo((sonnet.tokens_rewritten * 3.45) / 1e6, 5);
    expect(sonnet.dollars_saved_net).toBeCloseTo(sonnet.dollars_saved - sonnet.dollars_cache_rewrites, 5);
    // The same report from the CLI: one row per model and mode, with the breaks, their cost and the net.
    const cliReport = await runSvc(['ai', 'compression', '--days', '1'], { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: g.s.url, SVC_TOKEN: ADMIN_TOKEN });
    expect(cliReport.code, cliReport.stderr).toBe(0);
    const row = cliReport.stdout.split('\n').find((l) => l.startsWith('claude-sonnet-4-6') && / on /.test(l)) ?? '';
    const usd = (v: number) => `${v < 0 ? '−' : ''}$${Math.abs(v).toFixed(Math.abs(v) < 1 ? 4 : 2)}`;
    expect(row).toContain(` ${sonnet.cache_breaks.toLocaleString('en-US')} `);
    expect(row.trimEnd()).toMatch(new RegExp(`${usd(sonnet.dollars_saved_net).replace('$', '\\$')}( \\(dearer\\))?$`));
    // And through MCP: the SDK client checks the answer against the tool's output schema.
    const mcp = new Client({ name: 'svc-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${g.s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } } }));
    try {
      const viaMcp = await mcp.callTool({ name: 'compression_report', arguments: { days: 1, group_by: 'model' } });
      expect(viaMcp.structuredContent).toEqual(byModel);
    } finally {
      await mcp.close();
    }
    const bad = await runSvc(['ai', 'compression', '--by', 'account'], { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: g.s.url, SVC_TOKEN: ADMIN_TOKEN });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--by must be model, key or team');
    const viewer = await g.s.api('GET', '/api/v1/compression/report', undefined, { authorization: '' });
    expect(viewer.statusCode).toBe(401);
  });
});
