/**
 * Codex CLI's `namespace` tool (`multi_agent_v1`: its sub-agent functions) through the gateway to upstreams of every
 * other style: the functions are offered as `multi_agent_v1__<name>`, and the model's call comes back to the client
 * as the function in its namespace, whole and streamed; the tool round trip completes. The fakes call the first tool
 * offered.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';
import { offeredTools } from './offered-tools.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => g?.close());

const fn = (name: string): OpenAI.Responses.NamespaceTool.Function => ({
  type: 'function', name, description: `${name} a sub-agent`, strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
});
const TOOLS: OpenAI.Responses.Tool[] = [
  { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents', tools: ['spawn_agent', 'send_input', 'wait', 'close_agent', 'resume_agent'].map(fn) },
  { type: 'function', name: 'shell', description: 'Run a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'string' } } } },
];

describe.each([
  ['chat upstream', 'gpt-4o-mini', (e: GatewayEnv): FakeUpstream => e.chat],
  ['messages upstream', 'claude-sonnet-4-6', (e: GatewayEnv): FakeUpstream => e.messages],
  ['generative upstream', 'gemini-2.5-flash', (e: GatewayEnv): FakeUpstream => e.generative],
] as const)('Codex namespace tools, %s', (_n, model, fakeOf) => {
  it('offers the flattened functions and answers with the call in its namespace', async () => {
    const { data, response } = await client.responses.create({ model, store: false, tools: TOOLS, input: 'start a helper' }).withResponse();
    expect(offeredTools(fakeOf(g))).toEqual([
      'multi_agent_v1__spawn_agent', 'multi_agent_v1__send_input', 'multi_agent_v1__wait', 'multi_agent_v1__close_agent', 'multi_agent_v1__resume_agent', 'shell',
    ]);
    expect(response.headers.get('x-svc-warning')).toBeNull();
    const call = data.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"city":"Oslo"}' });
  });

  it('streams the call in its namespace and completes the round trip', async () => {
    const stream = await client.responses.create({ model, store: false, stream: true, tools: TOOLS, input: 'start a helper' });
    let done: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) if (ev.type === 'response.completed') done = ev.response;
    const call = done?.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
    if (call?.type !== 'function_call') throw new Error('no call');
    const final = await client.responses.create({
      model, store: false, tools: TOOLS,
      input: [
        { role: 'user', content: 'start a helper' },
        { type: 'function_call', call_id: call.call_id, name: call.name, namespace: call.namespace, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'agent a1 started' },
      ],
    });
    expect(final.output_text).toBe('Echo: start a helper');
    const sent = JSON.stringify(fakeOf(g).calls.at(-1)?.body);
    expect(sent).toContain('multi_agent_v1__spawn_agent');
    expect(sent).toContain('agent a1 started');
  });
});
