/**
 * A chat client asking for reasoning with a low `top_p`, served by a messages upstream (Claude): the messages API
 * refuses thinking with `top_p` below 0.95, so the gateway sends 0.95 and says so in X-Svc-Warning.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';

let g: GatewayEnv;
let client: OpenAI;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new OpenAI({ apiKey: g.key, baseURL: `${g.s.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => g?.close());

describe('chat client with reasoning and top_p, messages upstream', () => {
  it('sends thinking with top_p raised to 0.95 and warns', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'claude-sonnet-4-6', reasoning_effort: 'high', top_p: 0.5, messages: [{ role: 'user', content: 'think' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('Echo: think');
    const sent = g.messages.calls.at(-1)?.body as { thinking?: { type: string }; top_p?: number };
    expect(sent.thinking?.type).toMatch(/enabled|adaptive/);
    expect(sent.top_p).toBe(0.95);
    expect(response.headers.get('x-svc-warning')).toContain('top_p 0.5 was raised to 0.95');
  });
});
