/**
 * Claude Code with default settings lists deferred tools (`defer_loading: true`), among them a
 * `DeferredToolPlaceholder` that must never be called. Through the gateway to a chat or generative upstream, those
 * tools are left out of the upstream's tool list with X-Svc-Warning until a tool search loads them; the fakes call
 * the first tool offered, so a placeholder offered first would be called.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayEnv, type GatewayEnv } from './gateway-env.ts';
import { offeredTools } from './offered-tools.ts';

let g: GatewayEnv;
let client: Anthropic;
beforeAll(async () => {
  g = await startGatewayEnv();
  client = new Anthropic({ apiKey: g.key, baseURL: g.s.url, maxRetries: 0 });
}, 60_000);
afterAll(async () => g?.close());

// As Claude Code sends them: the placeholder has no schema.
const PLACEHOLDER = { name: 'DeferredToolPlaceholder', defer_loading: true } as unknown as Anthropic.Tool;
const SEARCH: Anthropic.Tool = { name: 'ToolSearch', description: 'Load deferred tools', input_schema: { type: 'object', properties: { query: { type: 'string' } } } };
const DOCS: Anthropic.Tool = { name: 'mcp__docs__search', description: 'Search docs', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, defer_loading: true };

describe.each([['chat upstream', 'gpt-4o-mini'], ['generative upstream', 'gemini-2.5-flash']])('Claude Code deferred tools, %s', (_n, model) => {
  it('never offers the placeholder: the model calls a real tool, with a warning', async () => {
    const { data, response } = await client.messages
      .create({ model, max_tokens: 256, tools: [PLACEHOLDER, SEARCH, DOCS], messages: [{ role: 'user', content: 'find the docs' }] })
      .withResponse();
    expect(offeredTools(model.startsWith('gpt') ? g.chat : g.generative)).toEqual(['ToolSearch']);
    expect(data.content.filter((b) => b.type === 'tool_use').map((b) => b.name)).toEqual(['ToolSearch']);
    expect(response.headers.get('x-svc-warning')).toContain('2 deferred tool(s) (defer_loading: true) were left out');
  });

  it('offers a deferred tool once a tool search loaded it, and the round trip completes', async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'find the docs' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_s', name: 'ToolSearch', input: { query: 'docs' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_s', content: [{ type: 'tool_reference', tool_name: 'mcp__docs__search' }] }] },
    ] as unknown as Anthropic.MessageParam[];
    const res = await client.messages.create({ model, max_tokens: 256, tools: [PLACEHOLDER, DOCS, SEARCH], messages });
    expect(offeredTools(model.startsWith('gpt') ? g.chat : g.generative)).toEqual(['mcp__docs__search', 'ToolSearch']);
    expect(res.stop_reason).toBe('end_turn');
  });
});
