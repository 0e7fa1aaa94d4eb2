import { describe, expect, it } from 'vitest';
import { SseParser } from '../../core/sse.ts';
import type { StyleName } from '../../translators/model.ts';
import type { FakeAnswer } from '../../test/fakes/fake-upstream.ts';
import { FAKE_WIRES } from '../../test/fakes/start-fake.ts';
import { createUsageTap, usageOfJson, usageOfRaw } from './usage-taps.ts';

const ANSWER: FakeAnswer = { text: 'Hello there', stop: 'end', usage: { input: 40, output: 9, cacheRead: 10, reasoning: 3 } };
const PATHS: Record<StyleName, [string, string, unknown]> = {
  chat: ['/v1/chat/completions', '', { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }],
  messages: ['/v1/messages', '', { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }],
  generative: ['/v1beta/models/m:streamGenerateContent', 'alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
  responses: ['/v1/responses', '', { model: 'm', stream: true, input: 'hi' }],
};

function frames(style: StyleName): string[] {
  const wire = FAKE_WIRES[style];
  const [path, query, body] = PATHS[style];
  return wire.frames(ANSWER, wire.inspect('POST', path, new URLSearchParams(query), body)!);
}

function tap(style: StyleName, text: string, hide = false) {
  const t = createUsageTap(style, { hideUsageChunk: hide });
  const p = new SseParser({ dispatchIncompleteAtEnd: true });
  const kept = [...p.feed(Buffer.from(text)), ...p.end()].filter((e) => t.push(e));
  return { t, kept };
}

describe.each(['chat', 'messages', 'generative', 'responses'] as const)('the %s usage tap', (style) => {
  it('reads the reported usage and sees the normal end', () => {
    const { t } = tap(style, frames(style).join(''));
    expect(t.complete).toBe(true);
    expect(t.failed).toBe(false);
    const u = t.usage();
    expect(u.source).toBe('reported');
    expect(u.outputTokens).toBe(9);
    if (style === 'messages') expect(u).toMatchObject({ inputTokens: 40, cacheReadTokens: 10 });
    else expect(u).toMatchObject({ inputTokens: 40, cacheReadTokens: 10, reasoningTokens: 3 });
  });

  it('knows where an appended error continues from (responses: the response id and the next event number)', () => {
    const f = frames(style);
    const { t } = tap(style, f.slice(0, 3).join(''));
    if (style !== 'responses') return expect(t.continuation).toBeUndefined();
    const c = t.continuation?.();
    expect(c?.id).toMatch(/^resp_/);
    expect(c?.sequenceFrom).toBeGreaterThan(0);
  });

  it('does not take a stream cut short for a complete one', () => {
    const f = frames(style);
    expect(tap(style, f.slice(0, 2).join('')).t.complete).toBe(false);
  });

  it('reads the usage of a JSON answer', () => {
    const wire = FAKE_WIRES[style];
    const [path, query, body] = PATHS[style];
    const info = wire.inspect('POST', path, new URLSearchParams(query), { ...(body as object), stream: false })!;
    const json = wire.json(ANSWER, info);
    expect(usageOfJson(style, json)).toMatchObject({ source: 'reported', outputTokens: 9 });
    expect(usageOfRaw(style, JSON.stringify(json))).toEqual(usageOfJson(style, json));
    expect(usageOfRaw(style, JSON.stringify(json, null, 2))).toEqual(usageOfJson(style, json));
  });
});

describe('usage of a raw JSON answer', () => {
  it('is not fooled by a quoted key in the content', () => {
    const text = JSON.stringify({ choices: [{ message: { content: 'the "usage": {"prompt_tokens": 99}' } }], usage: { prompt_tokens: 3, completion_tokens: 1 } });
    expect(usageOfRaw('chat', text)).toMatchObject({ inputTokens: 3, outputTokens: 1 });
    expect(usageOfRaw('chat', '{"choices":[]}').source).toBe('unknown');
  });
});

describe('the chat tap', () => {
  it('hides the usage chunk only when asked to, and notices an error chunk', () => {
    const text = frames('chat').join('');
    expect(tap('chat', text, true).kept.some((e) => e.data.includes('"usage":{'))).toBe(false);
    expect(tap('chat', text, false).kept.some((e) => e.data.includes('"usage":{'))).toBe(true);
    expect(tap('chat', 'data: {"error":{"message":"overloaded"}}\n\n').t.failed).toBe(true);
  });

  it('reads spaced JSON as compact JSON, and a null finish reason or usage as nothing', () => {
    const spaced = 'data: {"choices": [{"delta": {}, "finish_reason" : "stop"}]}\n\ndata: {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}\n\n';
    const { t } = tap('chat', spaced);
    expect(t.complete).toBe(true);
    expect(t.usage()).toMatchObject({ inputTokens: 5, outputTokens: 2 });
    const open = tap('chat', 'data: {"choices":[{"delta":{"content":"x"},"finish_reason":null}],"usage":null}\n\n').t;
    expect(open.complete).toBe(false);
    expect(open.usage().source).toBe('unknown');
  });
});
