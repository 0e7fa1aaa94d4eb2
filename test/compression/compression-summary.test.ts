/**
 * Summaries of the oldest turns through the running gateway (issue 13 point 2 and its bad input): a session
 * replayed turn by turn to the messages fake, with summaries made by gpt-4o-mini (the chat fake) as calls of a key
 * of their own. The summary is made after the answer of the turn before a growth step, used from that step on,
 * made once per span and reused, and billed to its key; a summary call that fails or a summary key over its limit
 * leaves the turns unsummarised, with X-Svc-Warning, and the call succeeds.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compressionOf } from '../../proxy/compression/compression-service.ts';
import { DEFAULT_COMPRESS_OPTIONS } from '../../compressor/compress-options.ts';
import { compressConversation } from '../../compressor/compress-conversation.ts';
import { summaryMarker } from '../../compressor/summary-span.ts';
import { getStyle } from '../../translators/styles.ts';
import { startGatewayEnv, type GatewayEnv } from '../gateway/gateway-env.ts';
import { DEFAULT_SESSION, generateSession, type Session } from './agent-session.ts';
import { messagesToolIds, sessionBody } from './session-wire.ts';

let g: GatewayEnv;
let summaryKey: string;
const MODEL = 'claude-sonnet-4-6';
const RULES = [{ pattern: 'claude-*', lossy_at_tokens: 16_000, huge_output_tokens: 1_000 }];
const sessionOf = (seed: number) => generateSession({ ...DEFAULT_SESSION, seed, rounds: 50, fileLines: [20, 120], testLogLines: [20, 150] });

beforeAll(async () => {
  g = await startGatewayEnv();
  const k = await g.s.api('POST', '/api/v1/keys', { name: 'summaries', models: ['gpt-4o-mini'] }, { 'x-svc-team': 'gw' });
  expect(k.statusCode, k.body).toBe(201);
  summaryKey = k.json().id as string;
});
afterAll(async () => g?.close());
beforeEach(async () => {
  // A summary queued by the previous test's last answer is made before the fakes are reset.
  await summariesSettled();
  g.messages.reset();
  g.chat.reset();
  let made = 0;
  g.chat.policy = () => ({ text: `SUMMARY #${++made}: the task, the files read and the failing test.` });
  await g.s.api('PATCH', `/api/v1/keys/${summaryKey}`, { limits: {} });
  await setCompression({ mode: 'on', rules: RULES, summary: { model: 'gpt-4o-mini', key_id: summaryKey, min_tokens: 1000 } });
});

async function setCompression(body: Record<string, unknown>) {
  const res = await g.s.api('PUT', '/api/v1/settings/compression', body);
  expect(res.statusCode, res.body).toBe(200);
  await compressionOf(g.s.ctx).settings.loaded();
  return res;
}

/**
 * Request sizes (odd turn counts: the last turn is the user's) n, n + 2, n + 4 where n is at a growth level L - 1 ≥ 0
 * and n + 2 and n + 4 are at level L: the summary is made after n and used from n + 2 on.
 */
function stepTurns(session: Session): number {
  const conv = getStyle('messages').decodeRequest(sessionBody(session, session.conversation.turns.length, 'messages', MODEL));
  // The options the gateway compresses with under RULES: a step depends on what the turns would save.
  const opts = { ...DEFAULT_COMPRESS_OPTIONS, lossyAtTokens: RULES[0].lossy_at_tokens, hugeOutputTokens: RULES[0].huge_output_tokens };
  const level = (n: number) => compressConversation({ ...conv, turns: conv.turns.slice(0, n) }, opts).frontier.level;
  for (let n = 3; n + 4 <= conv.turns.length; n += 2) {
    if (level(n) >= 0 && level(n + 2) === level(n) + 1 && level(n + 4) === level(n + 2)) return n;
  }
  throw new Error('no growth step in the session');
}

async function turn(session: Session, n: number) {
  const res = await fetch(`${g.s.url}/v1/messages`, {
    method: 'POST', body: JSON.stringify(sessionBody(session, n, 'messages', MODEL, { max_tokens: 512 })),
    headers: { 'content-type': 'application/json', 'x-api-key': g.key, 'anthropic-version': '2023-06-01' },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const sent = g.messages.calls.at(-1)!;
  return { res, sent: sent.body as { messages: { role: string; content: unknown }[] }, raw: sent.raw };
}

/** Waits until the node has no summary queued or running (the job starts once the answer is complete). */
async function summariesSettled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  await compressionOf(g.s.ctx).summaries.idle();
}

describe('summaries of the oldest turns', () => {
  it('are made after turn N, used from turn N+1 on, made once per span and reused, and billed to the summary key', async () => {
    const session = sessionOf(7);
    const n = stepTurns(session);
    const first = await turn(session, n);
    expect(first.raw).not.toContain('[svc: a summary');
    await summariesSettled();
    expect(g.chat.calls).toHaveLength(1);
    expect((g.chat.calls[0].body as { model: string }).model).toBe('gpt-4o-mini');

    const next = await turn(session, n + 2);
    expect(next.res.headers.get('x-svc-warning')).toBeNull();
    const head = next.sent.messages[0];
    expect(head.role).toBe('user');
    expect(JSON.stringify(head.content)).toContain('SUMMARY #1');
    expect(JSON.stringify(head.content)).toContain(summaryMarker({ start: 0, end: 0 }).split(' 0 ')[0]);
    expect(next.sent.messages[1].role).toBe('assistant');
    // Every tool call after the summary keeps its result.
    const ids = messagesToolIds(next.sent);
    for (const id of ids.filter((i) => i.startsWith('call:'))) expect(ids).toContain(`result:${id.slice(5)}`);
    expect(Number(/after=(\d+)/.exec(next.res.headers.get('x-svc-compression') ?? '')?.[1])).toBeLessThan(Number(/after=(\d+)/.exec(first.res.headers.get('x-svc-compression') ?? '')?.[1]));
    await summariesSettled();

    // The same step: the same summary, and the history sent before starts the history sent now (the cache hits).
    const again = await turn(session, n + 4);
    expect(JSON.stringify(again.sent.messages[0].content)).toContain('SUMMARY #1');
    const before = JSON.stringify(next.sent.messages.slice(0, -4));
    expect(JSON.stringify(again.sent.messages).startsWith(before.slice(0, -1))).toBe(true);
    await summariesSettled();
    // One summary for the span used at this step, one for the span of the next step: made after n + 4, not after
    // n + 2, the request that took the step (no pace towards the next step yet: compressor/frontier.ts summaryPays).
    expect(g.chat.calls).toHaveLength(2);
    // The second span starts where the first ended, and its call gets the first summary as context.
    const asked = (g.chat.calls[1].body as { messages: { content: string }[] }).messages[1].content;
    expect(asked).toMatch(/^The conversation so far, as earlier summaries give it:\n\nSUMMARY #1/);
    expect(asked).toMatch(/Summarise turns \d+ to \d+ of the conversation/);
    const rows = await g.s.db.query<{ state: string }>('SELECT state FROM compression_summaries WHERE key_id = $1', [summaryKey]);
    expect(rows.rows.map((r) => r.state)).toEqual(['ready', 'ready']);

    const usage = await g.usage(2, summaryKey);
    expect(usage.map((u) => [u.model, u.status])).toEqual([['gpt-4o-mini', 200], ['gpt-4o-mini', 200]]);
    expect(usage[0].input_tokens).toBeGreaterThan(0);
  });

  it('a summary call that fails leaves the turns unsummarised, says so in X-Svc-Warning, and the call succeeds', async () => {
    const session = sessionOf(8);
    const n = stepTurns(session);
    g.chat.script({ error: 400, message: 'The summary model refused.' });
    await turn(session, n);
    await summariesSettled();
    const next = await turn(session, n + 2);
    expect(next.raw).not.toContain('[svc: a summary');
    expect(next.res.headers.get('x-svc-warning')).toMatch(/Turns \d+ to \d+ were not summarised \(the summary call failed: 400/);
    expect(next.res.headers.get('x-svc-compression')).toMatch(/^mode=on; /);
  });

  it('a summary key over its limit leaves the turns unsummarised with X-Svc-Warning, and the call succeeds', async () => {
    const session = sessionOf(9);
    const n = stepTurns(session);
    const limited = await g.s.api('PATCH', `/api/v1/keys/${summaryKey}`, { limits: { requests_per_minute: 0 } });
    expect(limited.json(), limited.body).toMatchObject({ limits: { requests_per_minute: 0 } });
    await turn(session, n);
    await summariesSettled();
    expect(g.chat.calls).toHaveLength(0);
    // The refusal is the summary key's, recorded like any refused call of it.
    await expect.poll(async () => (await g.usage(0, summaryKey)).find((u) => u.status === 429)).toMatchObject({ model: 'gpt-4o-mini', error_code: 'key_requests_per_minute' });
    const next = await turn(session, n + 2);
    expect(next.raw).not.toContain('[svc: a summary');
    expect(next.res.headers.get('x-svc-warning')).toMatch(/not summarised \(the summary call failed: 429 key_requests_per_minute/);
  });
});

describe('summary settings', () => {
  it('refuses a summary key that does not exist or may not call the model, and shows the setting', async () => {
    const missing = await g.s.api('PUT', '/api/v1/settings/compression', { mode: 'on', summary: { model: 'gpt-4o-mini', key_id: 'key_nope' } });
    expect(missing.json()).toMatchObject({ error: { code: 'validation_failed', details: { field: 'summary.key_id' } } });
    const model = await g.s.api('PUT', '/api/v1/settings/compression', { mode: 'on', summary: { model: MODEL, key_id: summaryKey } });
    expect(model.json()).toMatchObject({ error: { code: 'validation_failed', details: { field: 'summary.model' } } });
    // A change that does not name the summary keeps it; null turns summaries off.
    expect((await setCompression({ mode: 'on' })).json()).toMatchObject({ summary: { model: 'gpt-4o-mini', key_id: summaryKey, min_tokens: 1000 } });
    const shown = await g.s.api('GET', '/api/v1/settings/compression');
    expect(shown.json()).toMatchObject({ summary: { model: 'gpt-4o-mini', key_id: summaryKey, min_tokens: 1000 } });
    expect((await setCompression({ mode: 'on', summary: null })).json()).toMatchObject({ summary: null });
  });
});
