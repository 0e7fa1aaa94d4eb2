/**
 * The AI SDK's openai responses provider with its default `store: true` refers to its earlier assistant message with
 * an `item_reference`. Through the gateway to a messages upstream the call goes on, and X-Svc-Warning names the item
 * that could not be sent and how to avoid it (the request body below is the shape that provider sends).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
beforeAll(async () => {
  g = await startGatewayEnv();
}, 60_000);
afterAll(async () => g?.close());

describe('responses item_reference, messages upstream', () => {
  it('answers and warns which item was left out', async () => {
    const res = await fetch(`${g.s.url}/v1/responses`, {
      method: 'POST', headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-6',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
          { type: 'item_reference', id: 'msg_0123abcd' },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call_output', call_id: 'call_1', output: '3C' },
        ],
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-warning')).toContain('input[1] (item_reference msg_0123abcd) was dropped');
    const json = await res.json() as { output_text?: string; output: { type: string }[] };
    expect(json.output.some((o) => o.type === 'message')).toBe(true);
  });
});
