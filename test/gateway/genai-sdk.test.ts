/** The official `@google/genai` SDK against the gateway: a generative upstream (same style) and chat/messages upstreams. */
import { ApiError, GoogleGenAI, Type, type FunctionDeclaration } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let ai: GoogleGenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  ai = new GoogleGenAI({ apiKey: g.key, httpOptions: { baseUrl: g.s.url } });
});
afterAll(async () => g?.close());

const WEATHER: FunctionDeclaration = {
  name: 'get_weather', description: 'Weather of a city',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};

describe.each([
  ['same style (generative upstream)', 'gemini-2.5-flash'],
  ['chat upstream', 'gpt-4o-mini'],
  ['messages upstream', 'claude-sonnet-4-6'],
])('genai SDK, %s', (_name, model) => {
  it('generates content with usage', async () => {
    const res = await ai.models.generateContent({ model, contents: 'hello there', config: { systemInstruction: 'Be brief.' } });
    expect(res.text).toBe('Echo: hello there');
    expect(res.candidates?.[0].finishReason).toBe('STOP');
    expect(res.usageMetadata?.candidatesTokenCount).toBe(7);
    expect(res.sdkHttpResponse?.headers?.['x-svc-model']).toBe(model);
  });

  it('streams content (SSE)', async () => {
    let text = '';
    let finish: string | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'stream me' })) {
      text += chunk.text ?? '';
      finish ??= chunk.candidates?.[0]?.finishReason;
    }
    expect(text).toBe('Echo: stream me');
    expect(finish).toBe('STOP');
  });

  it('streams the JSON-array form when alt=sse is not asked', async () => {
    const res = await fetch(`${g.s.url}/v1beta/models/${model}:streamGenerateContent`, {
      method: 'POST', headers: { 'x-goog-api-key': g.key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'as an array' }] }] }),
    });
    expect(res.status).toBe(200);
    const chunks = JSON.parse(await res.text()) as { candidates?: { content?: { parts?: { text?: string }[] } }[] }[];
    expect(chunks.map((c) => c.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('') ?? '').join('')).toBe('Echo: as an array');
  });

  it('returns function calls, whole and streamed', async () => {
    const config = { tools: [{ functionDeclarations: [WEATHER] }] };
    const res = await ai.models.generateContent({ model, contents: 'weather in parallel please', config });
    expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([['get_weather', { city: 'Oslo' }], ['get_weather', { city: 'Paris' }]]);
    const calls: unknown[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'weather in parallel please', config })) {
      for (const c of chunk.functionCalls ?? []) calls.push([c.name, c.args]);
    }
    expect(calls).toEqual([['get_weather', { city: 'Oslo' }], ['get_weather', { city: 'Paris' }]]);
  });

  it('sends function responses back and gets the final answer', async () => {
    const res = await ai.models.generateContent({
      model, config: { tools: [{ functionDeclarations: [WEATHER] }] },
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '3C' } } }] },
      ],
    });
    expect(res.text).toBe('Echo: weather?');
  });

  it('counts tokens', async () => {
    const res = await ai.models.countTokens({ model, contents: 'how many tokens is this?' });
    expect(res.totalTokens).toBeGreaterThan(0);
  });

  it('re-expresses upstream errors with their status', async () => {
    const fake = model.startsWith('gpt') ? g.chat : model.startsWith('claude') ? g.messages : g.generative;
    fake.script({ error: 429, retryAfter: 4 });
    const e = await ai.models.generateContent({ model, contents: 'x' }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(429);
    expect((e as ApiError).message).toContain('RESOURCE_EXHAUSTED');
  });
});

describe('genai SDK refusals', () => {
  it('refuses a bad key and an unknown model in the generative error shape', async () => {
    const bad = new GoogleGenAI({ apiKey: 'sk-svc-nope', httpOptions: { baseUrl: g.s.url } });
    const e1 = await bad.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }).catch((err: unknown) => err);
    expect((e1 as ApiError).status).toBe(401);
    expect((e1 as ApiError).message).toContain('UNAUTHENTICATED');
    const e2 = await ai.models.generateContent({ model: 'gemini-none', contents: 'x' }).catch((err: unknown) => err);
    expect((e2 as ApiError).status).toBe(404);
    expect((e2 as ApiError).message).toContain('NOT_FOUND');
  });

  it('lists models in the generative shape and accepts the key as ?key=', async () => {
    const res = await fetch(`${g.s.url}/v1beta/models?key=${encodeURIComponent(g.key)}`);
    const body = (await res.json()) as { models: { name: string }[] };
    expect(body.models.map((m) => m.name)).toEqual(expect.arrayContaining(['models/gemini-2.5-flash', 'models/claude-sonnet-4-6']));
    const pager = await ai.models.list();
    const names: string[] = [];
    for await (const m of pager) names.push(m.name ?? '');
    expect(names).toContain('models/gpt-4o-mini');
  });
});

describe('countTokens through an alias', () => {
  beforeAll(async () => {
    const put = await g.s.api('PUT', '/api/v1/aliases/gem-count', { models: ['gemini-2.5-flash'] });
    expect(put.statusCode, put.body).toBeLessThan(300);
  });

  it('resolves an alias in the path like generateContent', async () => {
    const n = g.generative.calls.length;
    const res = await ai.models.countTokens({ model: 'gem-count', contents: 'how many tokens is this?' });
    expect(res.totalTokens).toBeGreaterThan(0);
    const call = g.generative.calls[n];
    expect(call?.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(res.sdkHttpResponse?.headers?.['x-svc-model']).toBe('gemini-2.5-flash');
  });

  it('rewrites generateContentRequest.model to the resolved model, leaving the other bytes alone', async () => {
    const n = g.generative.calls.length;
    const raw = '{"generateContentRequest":{"model":"models/gem-count","contents":[{"role":"user","parts":[{"text":"count  me"}]}]},"x_extra":1.0}';
    const res = await fetch(`${g.s.url}/v1beta/models/gem-count:countTokens`, { method: 'POST', headers: { 'x-goog-api-key': g.key, 'content-type': 'application/json' }, body: raw });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect(res.headers.get('x-svc-token-count')).toBeNull();
    const call = g.generative.calls[n];
    expect(call?.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(call?.body).toEqual({
      generateContentRequest: { model: 'models/gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'count  me' }] }] }, x_extra: 1,
    });
  });
});
