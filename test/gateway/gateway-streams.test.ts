/**
 * Broken streams and gone clients: an upstream that closes mid-answer or sends malformed SSE gives the client an
 * error event in its own style (never a clean-looking truncated answer), same style and translated alike; a
 * client that disconnects aborts the upstream request, and the usage of what was produced is still recorded.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
});
afterAll(async () => g?.close());

const post = (path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${g.s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const chatStream = (model: string) => post('/v1/chat/completions', { model, stream: true, messages: [{ role: 'user', content: 'a long story' }] }, { authorization: `Bearer ${g.key}` });
const messagesStream = (model: string) =>
  post('/v1/messages', { model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'a long story' }] }, { 'x-api-key': g.key, 'anthropic-version': '2023-06-01' });
const generativeStream = (model: string) =>
  post(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text: 'a long story' }] }] }, { 'x-goog-api-key': g.key });

function lastFrame(text: string): { event?: string; data: string } {
  const frames = text.trim().split(/\r?\n\r?\n/);
  const last = frames[frames.length - 1].split(/\r?\n/);
  const event = last.find((l) => l.startsWith('event: '))?.slice(7);
  return { event, data: last.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n') };
}

describe.each([
  ['chat client', chatStream, (t: string) => expect(JSON.parse(lastFrame(t).data)).toMatchObject({ error: { type: 'server_error' } })],
  ['messages client', messagesStream, (t: string) => expect(lastFrame(t)).toMatchObject({ event: 'error', data: expect.stringContaining('"type":"error"') })],
  ['generative client', generativeStream, (t: string) => expect(JSON.parse(lastFrame(t).data)).toMatchObject({ error: { status: expect.any(String) } })],
] as const)('%s', (_name, open, expectErrorFrame) => {
  it.each([
    ['same style', 0],
    ['translated', 1],
  ])('ends a stream cut short by the upstream with an error event (%s)', async (_kind, which) => {
    const [model, fake] = pair(open, which);
    fake.script({ cutAfter: 2 });
    const res = await open(model);
    expect(res.status).toBe(200);
    const text = await res.text();
    expectErrorFrame(text);
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('message_stop');
  });

  it.each([
    ['same style', 0],
    ['translated', 1],
  ])('ends a stream with malformed SSE with an error event (%s)', async (_kind, which) => {
    const [model, fake] = pair(open, which);
    fake.script({ malformed: true });
    const text = await (await open(model)).text();
    expectErrorFrame(text);
  });
});

/** [model, fake] of the same style as the client (0) or another style (1). */
function pair(open: unknown, which: number): [string, FakeUpstream] {
  const order: [string, FakeUpstream][] = open === chatStream
    ? [['gpt-4o-mini', g.chat], ['claude-haiku-4-5', g.messages]]
    : open === messagesStream ? [['claude-haiku-4-5', g.messages], ['gemini-2.5-flash', g.generative]] : [['gemini-2.5-flash', g.generative], ['gpt-4o-mini', g.chat]];
  return order[which];
}

describe('SDKs on a broken stream', () => {
  it('openai throws instead of returning a truncated answer', async () => {
    const client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    g.messages.script({ cutAfter: 4 });
    const run = async () => {
      for await (const chunk of await client.chat.completions.create({ model: 'claude-haiku-4-5', stream: true, messages: [{ role: 'user', content: 'x' }] })) void chunk;
    };
    await expect(run()).rejects.toThrow(/ended before the answer was finished|ended unexpectedly/);
  });

  it('anthropic rejects the final message', async () => {
    const client = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
    g.chat.script({ cutAfter: 2 });
    await expect(client.messages.stream({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }).finalMessage()).rejects.toThrow();
  });
});

describe('a client that goes away', () => {
  it.each([
    ['same style', 'gpt-4o-mini', 'chat'],
    ['translated', 'claude-haiku-4-5', 'messages'],
  ] as const)('aborts the upstream request and still records the usage (%s)', async (_kind, model, style) => {
    const fake = style === 'chat' ? g.chat : g.messages;
    fake.script({ slow: { delayMs: 40, events: 50 } });
    const k = await g.s.api('POST', '/api/v1/keys', { name: `gone-${style}` }, { 'x-svc-team': 'gw' });
    const ac = new AbortController();
    const res = await fetch(`${g.s.url}/v1/chat/completions`, {
      method: 'POST', signal: ac.signal, headers: { authorization: `Bearer ${k.json().key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'tell me everything' }] }),
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('word3')) seen += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    const call = fake.calls.at(-1)!;
    const deadline = Date.now() + 2000;
    while (!call.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(call.aborted).toBe(true);
    const [row] = await g.usage(1, k.json().id);
    expect(row).toMatchObject({ status: 200, error_code: 'client_disconnected', usage_source: 'estimated', stream: true });
    expect(row.output_tokens).toBeGreaterThanOrEqual(4);
    expect(row.input_tokens).toBeGreaterThan(0);
  });
});
