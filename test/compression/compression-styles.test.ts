/**
 * Compression `on` for the other client styles through the running gateway (issue 13 tests): a generative-language
 * client to a generative upstream (same style, re-encoded), a responses client (Codex-shaped) translated to a
 * messages upstream, and a chat stream whose client did not ask for usage (the gateway's usage chunk stays hidden).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressionOf } from '../../proxy/compression/compression-service.ts';
import { startGatewayEnv, type GatewayEnv } from '../gateway/gateway-env.ts';
import { DEFAULT_SESSION, generateSession } from './agent-session.ts';
import { messagesToolIds, sessionBody } from './session-wire.ts';

let g: GatewayEnv;
const session = generateSession({ ...DEFAULT_SESSION, seed: 11, rounds: 40, fileLines: [20, 120], testLogLines: [20, 150] });
const TURNS = session.conversation.turns.length;

beforeAll(async () => {
  g = await startGatewayEnv();
  const res = await g.s.api('PUT', '/api/v1/settings/compression', { mode: 'on', rules: [{ pattern: '*', lossy_at_tokens: 16_000, huge_output_tokens: 1_000 }] });
  expect(res.statusCode, res.body).toBe(200);
  await compressionOf(g.s.ctx).settings.loaded();
});
afterAll(async () => g?.close());

/** Function call names and response names in order, from a generative-style body. */
function generativePairs(body: { contents: { parts?: { functionCall?: { name: string }; functionResponse?: { name: string } }[] }[] }): string[] {
  return body.contents.flatMap((c) => (c.parts ?? []).flatMap((p) => (p.functionCall ? [`call:${p.functionCall.name}`] : p.functionResponse ? [`result:${p.functionResponse.name}`] : [])));
}

describe('compression on, other client styles', () => {
  it('generative-language client, same-style upstream: fewer bytes, every function pair kept', async () => {
    const body = JSON.stringify(sessionBody(session, TURNS, 'generative', 'gemini-2.5-flash'));
    const res = await fetch(`${g.s.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: 'POST', body, headers: { 'content-type': 'application/json', 'x-goog-api-key': g.key },
    });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.candidates[0].content.parts.length).toBeGreaterThan(0);
    expect(res.headers.get('x-svc-compression')).toMatch(/^mode=on; before=\d+; after=\d+; estimated$/);
    const sent = g.generative.calls.at(-1)!;
    expect(sent.raw.length).toBeLessThan(body.length * 0.8);
    expect(generativePairs(sent.body as Parameters<typeof generativePairs>[0])).toEqual(generativePairs(JSON.parse(body)));
    for (const span of session.spans) expect(sent.raw).toContain(span);
  });

  it('responses client translated to a messages upstream: fewer bytes, every tool pair kept', async () => {
    const client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const params = sessionBody(session, TURNS, 'responses', 'claude-sonnet-4-6') as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    const { data, response } = await client.responses.create(params).withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-svc-compression')).toMatch(/^mode=on; /);
    const sent = g.messages.calls.at(-1)!;
    const uncompressed = sessionBody(session, TURNS, 'messages', 'claude-sonnet-4-6');
    expect(sent.raw.length).toBeLessThan(JSON.stringify(uncompressed).length * 0.8);
    expect(messagesToolIds(sent.body as { messages: { content: unknown }[] })).toEqual(messagesToolIds(uncompressed as { messages: { content: unknown }[] }));
  });

  it('chat stream, same-style upstream, no usage asked: the answer streams unchanged and without a usage chunk', async () => {
    const client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
    const params = { ...sessionBody(session, TURNS, 'chat', 'gpt-4o-mini'), stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
    const read = async (headers: Record<string, string>) => {
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const c of await client.chat.completions.create(params, { headers })) chunks.push(c);
      return chunks;
    };
    const plain = await read({ 'x-svc-compress': 'off' });
    const plainSent = g.chat.calls.at(-1)!.raw;
    const compressed = await read({});
    expect(g.chat.calls.at(-1)!.raw.length).toBeLessThan(plainSent.length * 0.8);
    const text = (cs: OpenAI.ChatCompletionChunk[]) => cs.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text(compressed)).toBe(text(plain));
    expect(compressed.some((c) => c.usage)).toBe(false);
    expect(compressed.every((c) => c.choices.length > 0)).toBe(true);
  });
});
