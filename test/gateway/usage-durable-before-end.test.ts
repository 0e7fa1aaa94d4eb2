/**
 * A call's usage record is durable before the last byte of its answer reaches the client (issue 11 point 2): the
 * usage writer's write() is held here (a promise the test resolves, after the real writer has the record), and the
 * official SDKs must not see their answer complete until it is let go: a JSON answer's last byte, and a stream's
 * final event (chat `[DONE]`, messages `message_stop`, responses `response.completed`, generative-language the chunk
 * with its finishReason), same style and translated. Everything before the final event arrives while the write is held. A record that cannot be
 * made durable does not stop the answer.
 *
 * The checks that something has NOT happened yet wait a short grace period after the condition that precedes it;
 * they can only pass wrongly on a very slow machine, never fail wrongly.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsageWriter } from '../../proxy/metering/usage-writer.ts';
import type { UsageRecord } from '../../proxy/metering/usage-record.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

/** Writes waiting for the test; `mode` says what a new write does. */
const held: { record: UsageRecord; release: () => void }[] = [];
let mode: 'hold' | 'pass' | 'fail' = 'pass';
const realWrite = UsageWriter.prototype.write;

beforeAll(async () => {
  vi.spyOn(UsageWriter.prototype, 'write').mockImplementation(function (this: UsageWriter, record: UsageRecord, id?: string) {
    // The real writer gets the record at once (it is stored either way); only the durability promise is held.
    const written: unknown = realWrite.call(this, record, id);
    if (mode === 'fail') return Promise.reject(new Error('journal full'));
    return new Promise<void>((resolve, reject) => {
      const release = () => void Promise.resolve(written).then(() => resolve(), reject);
      if (mode === 'hold') held.push({ record, release });
      else release();
    });
  });
  g = await startGatewayEnv();
  openai = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: g.key, httpOptions: { baseUrl: g.s.url } });
}, 60_000);
afterAll(async () => {
  mode = 'pass';
  for (const h of held.splice(0)) h.release();
  await g?.close();
  vi.restoreAllMocks();
});

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const grace = () => new Promise((r) => setTimeout(r, 300));

/** Runs `call` with writes held: once `reached()` and the record is held, `done()` must still be false. */
async function heldUntilDurable<T>(call: () => Promise<T>, reached: () => boolean, done: () => boolean): Promise<T> {
  mode = 'hold';
  let settled = false;
  const p = call().finally(() => (settled = true));
  try {
    await until(() => held.length === 1 && reached(), 'the usage record to be held and the answer to reach its final part');
    await grace();
    expect(settled, 'the call completed while its usage record was not durable').toBe(false);
    expect(done(), 'the final part arrived while the usage record was not durable').toBe(false);
  } finally {
    mode = 'pass';
    for (const h of held.splice(0)) h.release();
  }
  return p;
}

describe('a JSON answer', () => {
  const rawCall = (content: string) => fetch(`${g.s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
  });

  it('reaches the client whole, in one write, only once the record is durable (raw bytes, a small answer)', async () => {
    mode = 'hold';
    let body: string | undefined;
    const pending = rawCall('bytes').then((res) => res.text()).then((t) => (body = t));
    await until(() => held.length === 1, 'the usage record to be held');
    await grace();
    expect(body, 'the answer arrived before the record was durable').toBeUndefined();
    mode = 'pass';
    held.splice(0).forEach((h) => h.release());
    await pending;
    expect((JSON.parse(body as string) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe('Echo: bytes');
  });

  it('reaches the client all but its last byte until the record is durable (raw bytes, an answer over 64 KB)', async () => {
    mode = 'hold';
    const content = 'x'.repeat(70_000);
    const res = await rawCall(content);
    const size = Number(res.headers.get('content-length'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const got: Uint8Array[] = [];
    let bytes = 0;
    while (bytes < size - 1) {
      const r = await reader.read();
      if (r.done) break;
      got.push(r.value);
      bytes += r.value.length;
    }
    expect(bytes).toBe(size - 1);
    await until(() => held.length === 1, 'the usage record to be held');
    let last: ReadableStreamReadResult<Uint8Array> | undefined;
    const pending = reader.read().then((r) => (last = r));
    await grace();
    expect(last, 'the last byte arrived before the record was durable').toBeUndefined();
    mode = 'pass';
    held.splice(0).forEach((h) => h.release());
    await pending;
    got.push(last?.value ?? new Uint8Array());
    const body = JSON.parse(Buffer.concat(got).toString('utf8')) as { choices: { message: { content: string } }[] };
    expect(body.choices[0].message.content).toBe(`Echo: ${content}`);
  });

  it.each([
    ['openai SDK, chat upstream', 'gpt-4o-mini'],
    ['openai SDK, messages upstream (translated)', 'claude-haiku-4-5'],
  ])('%s: the SDK call completes only once the record is durable', async (_name, model) => {
    const r = await heldUntilDurable(() => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'whole' }] }), () => true, () => false);
    expect(r.choices[0].message.content).toBe('Echo: whole');
  });

  it('anthropic SDK: the same', async () => {
    const r = await heldUntilDurable(() => anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'whole' }] }), () => true, () => false);
    expect(r.content).toEqual([expect.objectContaining({ type: 'text', text: 'Echo: whole' })]);
  });
});

describe('a stream', () => {
  it.each([
    ['chat upstream (passthrough)', 'gpt-4o-mini'],
    ['messages upstream (translated)', 'claude-haiku-4-5'],
  ])('openai SDK, %s: [DONE] and the end wait; the usage chunk before them does not', async (_name, model) => {
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    let ended = false;
    const run = async () => {
      const stream = await openai.chat.completions.create({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream' }] });
      for await (const c of stream) chunks.push(c);
      ended = true;
    };
    await heldUntilDurable(run, () => chunks.some((c) => c.usage), () => ended);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: stream');
    expect(ended).toBe(true);
  });

  it('openai SDK, chat upstream without include_usage (the usage chunk cut out): [DONE] waits; the finish chunk does not', async () => {
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    let ended = false;
    const run = async () => {
      for await (const c of await openai.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'stream' }] })) chunks.push(c);
      ended = true;
    };
    await heldUntilDurable(run, () => chunks.some((c) => c.choices[0]?.finish_reason), () => ended);
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  it('openai SDK responses, chat upstream (translated): response.completed waits; the output events do not', async () => {
    const types: string[] = [];
    const run = async () => {
      for await (const ev of await openai.responses.create({ model: 'gpt-4o-mini', stream: true, input: 'stream' })) types.push(ev.type);
    };
    await heldUntilDurable(run, () => types.includes('response.output_item.done'), () => types.includes('response.completed'));
    expect(types.at(-1)).toBe('response.completed');
  });

  it.each([
    ['messages upstream (passthrough)', 'claude-haiku-4-5'],
    ['generative upstream (translated)', 'gemini-2.5-flash'],
  ])('anthropic SDK, %s: message_stop waits; message_delta with the usage does not', async (_name, model) => {
    const types: string[] = [];
    const run = async () => {
      const stream = await anthropic.messages.create({ model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'stream' }] });
      for await (const ev of stream) types.push(ev.type);
    };
    await heldUntilDurable(run, () => types.includes('message_delta'), () => types.includes('message_stop'));
    expect(types.at(-1)).toBe('message_stop');
  });

  it('genai SDK, generative upstream (passthrough): the chunk with the finishReason waits; the text before it does not', async () => {
    const chunks: { text: string; finish: unknown }[] = [];
    const run = async () => {
      for await (const c of await genai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'stream' })) {
        chunks.push({ text: c.text ?? '', finish: c.candidates?.[0]?.finishReason });
      }
    };
    await heldUntilDurable(run, () => chunks.map((c) => c.text).join('') === 'Echo: stream', () => chunks.some((c) => c.finish));
    expect(chunks.at(-1)?.finish).toBe('STOP');
  });
});

describe('a record that cannot be made durable', () => {
  it('does not stop the answer, whole or streamed', async () => {
    mode = 'fail';
    try {
      const r = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'anyway' }] });
      expect(r.choices[0].message.content).toBe('Echo: anyway');
      const types: string[] = [];
      for await (const ev of await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'anyway' }] })) types.push(ev.type);
      expect(types.at(-1)).toBe('message_stop');
    } finally {
      mode = 'pass';
    }
  });
});

describe('the records', () => {
  it('are all stored with their usage', async () => {
    const rows = await g.usage(14);
    expect(rows).toHaveLength(14);
    expect(rows.every((r) => r.status === 200 && r.output_tokens > 0)).toBe(true);
  });
});
