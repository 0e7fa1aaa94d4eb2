/**
 * The AI SDK's openai responses provider with its default `store: true` refers to its earlier assistant message with
 * an `item_reference`. Through the gateway to a messages upstream the reference is resolved from the key's stored
 * responses: the upstream sees the assistant's text before the tool call (the request body below is the shape that
 * provider sends). An id nothing stored is refused and named, never dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

const TOOLS = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];

function call(body: unknown): Promise<Response> {
  return fetch(`${g.s.url}/v1/responses`, {
    method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
}

describe('responses item_reference, messages upstream', () => {
  it('sends the stored item in place of the reference', async () => {
    const first = await call({ model: 'claude-sonnet-4-6', input: [{ role: 'user', content: [{ type: 'input_text', text: 'weather?' }] }] });
    expect(first.status).toBe(200);
    const answered = await first.json() as { output: Array<{ id: string; type: string }> };
    const message = answered.output.find((o) => o.type === 'message')!;

    const res = await call({
      model: 'claude-sonnet-4-6',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
        { type: 'item_reference', id: message.id },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '3C' },
      ],
      tools: TOOLS,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-svc-warning') ?? '').not.toContain('item_reference');
    const sent = g.messages.calls[g.messages.calls.length - 1].body as { messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }> };
    const assistant = sent.messages.find((m) => m.role === 'assistant')!;
    expect(assistant.content.map((c) => c.type)).toEqual(['text', 'tool_use']);
    expect(assistant.content[0].text).toBe('Echo: weather?');
  });

  it('refuses a reference to an item no stored response holds, naming it', async () => {
    const res = await call({ model: 'claude-sonnet-4-6', input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_0123abcd' }] });
    expect(res.status).toBe(400);
    const body = await res.json() as { error: { code: string; message: string; param: string } };
    expect(body.error).toMatchObject({ code: 'response_reference_unresolved', param: 'input[1]' });
    expect(body.error.message).toContain('msg_0123abcd');
  });
});
