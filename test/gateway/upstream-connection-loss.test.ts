/**
 * An upstream connection lost before any byte reached the client is a failed attempt like a 5xx (issue 11 point
 * 5): a non-streamed answer cut halfway, a stream that breaks after its head and before its first chunk, a body
 * that stalls past the timeout and an upstream that never answers all move on to the alias's next model; with
 * nothing left the official SDKs see 502 `upstream_connection_lost` in their own error shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

beforeAll(async () => {
  g = await startGatewayEnv({ SVC_UPSTREAM_TIMEOUT_MS: '1500' });
  openai = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: g.key, httpOptions: { baseUrl: g.s.url } });
  // The chat fake serves gpt-4o first; the generative fake takes over.
  const put = await g.s.api('PUT', '/api/v1/aliases/lossy', { models: ['gpt-4o', 'gemini-2.5-pro'] });
  expect(put.statusCode, put.body).toBeLessThan(300);
}, 60_000);
afterAll(async () => g?.close());

/** What each SDK answers for the alias, whole or streamed: the text and the model that answered. */
const ask: Record<'chat' | 'messages' | 'generative', (stream: boolean) => Promise<{ text: string; model: string | null }>> = {
  chat: async (stream) => {
    if (!stream) {
      const { data, response } = await openai.chat.completions.create({ model: 'lossy', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      return { text: data.choices[0].message.content ?? '', model: response.headers.get('x-svc-model') };
    }
    const { data, response } = await openai.chat.completions.create({ model: 'lossy', stream: true, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    let text = '';
    for await (const c of data) text += c.choices[0]?.delta.content ?? '';
    return { text, model: response.headers.get('x-svc-model') };
  },
  messages: async (stream) => {
    if (!stream) {
      const { data, response } = await anthropic.messages.create({ model: 'lossy', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      return { text: data.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), model: response.headers.get('x-svc-model') };
    }
    const { data, response } = await anthropic.messages.create({ model: 'lossy', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    let text = '';
    for await (const ev of data) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
    return { text, model: response.headers.get('x-svc-model') };
  },
  generative: async (stream) => {
    if (!stream) {
      const r = await genai.models.generateContent({ model: 'lossy', contents: 'hi' });
      return { text: r.text ?? '', model: r.sdkHttpResponse?.headers?.['x-svc-model'] ?? null };
    }
    let text = '';
    let model: string | null = null;
    for await (const c of await genai.models.generateContentStream({ model: 'lossy', contents: 'hi' })) {
      text += c.text ?? '';
      model ??= c.sdkHttpResponse?.headers?.['x-svc-model'] ?? null;
    }
    return { text, model };
  },
};

describe.each(['chat', 'messages', 'generative'] as const)('a %s client', (style) => {
  it.each([false, true])('falls back to the next model when the upstream drops the connection before its answer is complete (stream: %s)', async (stream) => {
    const before = g.chat.calls.length;
    g.chat.script({ cutBody: 'close' });
    const r = await ask[style](stream);
    expect(r.text).toBe('Echo: hi');
    expect(r.model).toBe('gemini-2.5-pro');
    // The cut attempt was really made.
    expect(g.chat.calls.length).toBe(before + 1);
  });
});

describe('with no model left', () => {
  const cut = () => g.chat.script({ cutBody: 'close' });

  it('the openai SDK sees 502 upstream_connection_lost', async () => {
    cut();
    const e = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(OpenAI.APIError);
    expect((e as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((e as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_connection_lost');
  });

  it('the anthropic SDK sees 502 upstream_connection_lost, streamed too', async () => {
    for (const stream of [false, true]) {
      cut();
      const e = await anthropic.messages.create({ model: 'gpt-4o-mini', max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(Anthropic.APIError);
      expect((e as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
      expect((e as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error', code: 'upstream_connection_lost' } });
    }
  });

  it('the genai SDK sees 502 with the reason upstream_connection_lost', async () => {
    cut();
    const e = await genai.models.generateContent({ model: 'gpt-4o-mini', contents: 'hi' }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(502);
    expect((e as ApiError).message).toContain('upstream_connection_lost');
  });

  it('records the calls: served by the next model after a loss, refused with the code when nothing was left', async () => {
    const rows = await g.usage(10);
    expect(rows.filter((r) => r.status === 200 && r.served_model === 'gemini-2.5-pro' && r.alias === 'lossy')).toHaveLength(6);
    expect(rows.filter((r) => r.status === 502 && r.error_code === 'upstream_connection_lost')).toHaveLength(4);
  });
});

describe('an upstream that stalls', () => {
  it('moves on when the body stops halfway (body timeout) and when no head comes (headers timeout)', async () => {
    for (const script of [{ cutBody: 'stall' as const }, { hang: true as const }]) {
      g.chat.script(script);
      const r = await ask.chat(false);
      expect(r).toEqual({ text: 'Echo: hi', model: 'gemini-2.5-pro' });
    }
  }, 30_000);
});
