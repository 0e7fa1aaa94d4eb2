/**
 * Responses clients listing deferred functions (`defer_loading: true`, with a `tool_search` tool) through the gateway
 * to upstreams of other styles: those no tool search has loaded are not offered (X-Svc-Warning), and once a
 * `tool_search_output` lists one it is offered. The fakes call the first tool offered.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';
import { offeredTools } from './offered-tools.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

const params = { type: 'object', properties: { city: { type: 'string' } } };
const TOOLS = [
  { type: 'function', name: 'lookup', description: 'Look a city up', parameters: params, strict: false, defer_loading: true },
  { type: 'function', name: 'shell', description: 'Run a command', parameters: params, strict: false },
  { type: 'tool_search' },
];

describe.each([
  ['chat upstream', 'gpt-4o-mini', (e: GatewayEnv): FakeUpstream => e.chat],
  ['messages upstream', 'claude-sonnet-4-6', (e: GatewayEnv): FakeUpstream => e.messages],
  ['generative upstream', 'gemini-2.5-flash', (e: GatewayEnv): FakeUpstream => e.generative],
] as const)('responses deferred tools, %s', (_n, model, fakeOf) => {
  const post = (body: object) => fetch(`${g.s.url}/v1/responses`, {
    method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, store: false, ...body }),
  });

  it('does not offer a deferred function no search loaded', async () => {
    const res = await post({ tools: TOOLS, input: 'weather in Oslo' });
    expect(res.status).toBe(200);
    const json = await res.json() as OpenAI.Responses.Response;
    expect(offeredTools(fakeOf(g))).toEqual(['shell']);
    expect(json.output.find((o) => o.type === 'function_call')).toMatchObject({ name: 'shell' });
    expect(res.headers.get('x-svc-warning')).toContain('1 deferred tool(s) (defer_loading: true) were left out, as no tool search has loaded them: lookup.');
  });

  it('offers it once a tool_search_output lists it', async () => {
    const res = await post({
      tools: TOOLS,
      input: [
        { role: 'user', content: 'weather in Oslo' },
        { type: 'tool_search_call', call_id: 'ts_1', execution: 'client', arguments: { query: 'city' }, status: 'completed' },
        { type: 'tool_search_output', call_id: 'ts_1', execution: 'client', status: 'completed', tools: [TOOLS[0]] },
      ],
    });
    expect(res.status).toBe(200);
    expect(offeredTools(fakeOf(g))).toEqual(['lookup', 'shell']);
    const json = await res.json() as OpenAI.Responses.Response;
    expect(json.output.find((o) => o.type === 'function_call')).toMatchObject({ name: 'lookup' });
  });
});
