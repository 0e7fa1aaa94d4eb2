/**
 * Recorded provider streams (test/fixtures) replayed by the fake upstreams: a same-style client receives the
 * recorded bytes exactly (passthrough), and clients of the other styles get them translated by their own SDKs.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  g = await startGatewayEnv();
  openai = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
});
afterAll(async () => g?.close());

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

describe('same style: the recorded bytes reach the client untouched', () => {
  it.each([
    ['messages/thinking.sse.txt', '/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': 'KEY', 'anthropic-version': '2023-06-01' }],
    ['messages/tool-use.sse.txt', '/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': 'KEY', 'anthropic-version': '2023-06-01' }],
    ['chat/tool-calls-parallel.sse.txt', '/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] }, { authorization: 'Bearer KEY' }],
    ['generative/thinking.sse.txt', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] }, { 'x-goog-api-key': 'KEY' }],
  ] as const)('%s', async (name, path, body, headers) => {
    const fake = path.startsWith('/v1/messages') ? g.messages : path.startsWith('/v1/chat') ? g.chat : g.generative;
    fake.script({ replay: name });
    const before = (await g.usage(0)).length;
    const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('KEY', g.key)]));
    const res = await fetch(`${g.s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(fixture(name));
    const [row] = (await g.usage(before + 1)).slice(before);
    expect(row.usage_source).toBe('reported');
    expect(row.output_tokens).toBeGreaterThan(0);
  });

  it('hides only the usage chunk from a chat client that did not ask for it', async () => {
    g.chat.script({ replay: 'chat/text.sse.txt' });
    const res = await fetch(`${g.s.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const frames = fixture('chat/text.sse.txt').split('\n\n').filter(Boolean);
    const kept = frames.filter((f) => !/"choices":\[\],"usage":\{/.test(f));
    expect(kept.length).toBe(frames.length - 1);
    expect(await res.text()).toBe(kept.map((f) => `${f}\n\n`).join(''));
    expect(g.chat.calls.at(-1)?.body).toMatchObject({ stream_options: { include_usage: true } });
  });
});

describe('other styles: recorded streams translated for the official SDKs', () => {
  it('a recorded messages tool-use stream reaches an OpenAI client as tool calls', async () => {
    g.messages.script({ replay: 'messages/tool-use.sse.txt' });
    const calls = new Map<number, { name?: string; args: string }>();
    let finish: string | null = null;
    for await (const chunk of await openai.chat.completions.create({ model: 'claude-haiku-4-5', stream: true, messages: [{ role: 'user', content: 'x' }] })) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        const c = calls.get(tc.index) ?? { args: '' };
        c.name ??= tc.function?.name;
        c.args += tc.function?.arguments ?? '';
        calls.set(tc.index, c);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(calls.size).toBeGreaterThan(0);
    for (const c of calls.values()) expect(() => JSON.parse(c.args)).not.toThrow();
  });

  it('a recorded parallel chat stream reaches an Anthropic client as tool_use blocks', async () => {
    g.chat.script({ replay: 'chat/tool-calls-parallel.sse.txt' });
    const final = await anthropic.messages.stream({ model: 'gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.filter((b) => b.type === 'tool_use').length).toBeGreaterThanOrEqual(2);
  });

  it('a recorded generative thinking stream reaches an Anthropic client with its text', async () => {
    g.generative.script({ replay: 'generative/thinking.sse.txt' });
    const final = await anthropic.messages.stream({ model: 'gemini-2.5-flash', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    expect(final.content.some((b) => b.type === 'text' && b.text.length > 0)).toBe(true);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('a recorded stream cut short reaches an OpenAI client as an error', async () => {
    g.messages.script({ replay: 'messages/truncated.sse.txt' });
    const run = async () => {
      for await (const chunk of await openai.chat.completions.create({ model: 'claude-haiku-4-5', stream: true, messages: [{ role: 'user', content: 'x' }] })) void chunk;
    };
    await expect(run()).rejects.toThrow();
  });
});
