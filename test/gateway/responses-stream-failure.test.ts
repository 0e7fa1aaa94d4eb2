/**
 * The openai SDK's `responses.create({stream: true})` when the upstream breaks mid-answer, on every translated
 * upstream style: the loop raises (the error event carries the documented flat fields and the nested `error` object
 * that the SDKs raise on), and the message item cut short is `incomplete`, never `completed`.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => g?.close());

// Frames to let through before the cut: each style's head, then the first half of the text.
describe.each([
  ['chat upstream', 'gpt-4o-mini', (e: GatewayEnv): FakeUpstream => e.chat, 2],
  ['messages upstream', 'claude-sonnet-4-6', (e: GatewayEnv): FakeUpstream => e.messages, 4],
  ['generative upstream', 'gemini-2.5-flash', (e: GatewayEnv): FakeUpstream => e.generative, 1],
] as const)('responses stream cut short, %s', (_n, model, fakeOf, cutAfter) => {
  it('raises in the SDK loop and marks the cut message incomplete', async () => {
    fakeOf(g).script({ cutAfter });
    const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
    const run = async () => {
      for await (const ev of await client.responses.create({ model, stream: true, input: 'a long story' })) seen.push(ev);
    };
    const err = await run().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toMatch(/ended before the answer was finished|that is not JSON/);
    const text = seen.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    expect(text.length).toBeGreaterThan(0);
    const done = seen.find((e) => e.type === 'response.output_item.done');
    expect(done).toMatchObject({ item: { type: 'message', status: 'incomplete' } });

    fakeOf(g).script({ cutAfter });
    const res = await fetch(`${g.s.url}/v1/responses`, {
      method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, stream: true, input: 'a long story' }),
    });
    const frames = [...(await res.text()).matchAll(/^event: (.+)\ndata: (.+)$/gm)].map((m) => ({ event: m[1], data: JSON.parse(m[2]) as Record<string, unknown> }));
    const error = frames.find((f) => f.event === 'error')?.data;
    expect(error).toMatchObject({ type: 'error', code: 'server_error', param: null, error: { type: 'server_error', code: 'server_error', message: error?.message } });
    expect(frames.at(-1)).toMatchObject({ event: 'response.failed', data: { response: { status: 'failed', output: [{ type: 'message', status: 'incomplete' }] } } });
  });
});
