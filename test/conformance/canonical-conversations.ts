/**
 * Canonical requests and replies the conformance suite sends through every pair of styles. Each holds only what
 * every style can express (ids in the messages charset, temperatures within 0–1, tool results ahead of text), plus
 * one thinking conversation whose signature may survive only within its own family.
 */
import type { Conversation, Reply } from '../../translators/model.ts';

const base = (over: Partial<Conversation>): Conversation => ({
  model: 'test-model', system: [], turns: [], tools: [], sampling: { maxTokens: 512 }, stream: false, extras: {}, warnings: [], ...over,
});

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] },
};

export const CANONICAL_CONVERSATIONS: Record<string, Conversation> = {
  text: base({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hello there.' }] }] }),

  system: base({
    system: [{ type: 'text', text: 'You answer in one short sentence.' }],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Why is the sky blue?' }] }],
    sampling: { maxTokens: 256, temperature: 0.4, topP: 0.9, stop: ['\n\n', 'END'] },
  }),

  'multi-turn': base({
    system: [{ type: 'text', text: 'Be brief.' }],
    turns: [
      { role: 'user', parts: [{ type: 'text', text: 'Name a fjord.' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Geirangerfjord.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Another one?' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Sognefjord.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Which is longer?' }] },
    ],
  }),

  images: base({
    turns: [{
      role: 'user',
      parts: [
        { type: 'text', text: 'What is in these pictures?' },
        { type: 'image', source: { kind: 'url', url: 'https://example.org/cat.jpg' } },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' } },
      ],
    }],
  }),

  tools: base({
    tools: [weatherTool, { name: 'get_time', description: 'Current time', parameters: { type: 'object', properties: {} } }],
    toolChoice: 'auto',
    turns: [
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo and Bergen, and the time?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'call_oslo1', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
          { type: 'tool_call', id: 'toolu_bergen2', name: 'get_weather', arguments: { city: 'Bergen', unit: 'c' }, argumentsText: '{"city":"Bergen","unit":"c"}' },
          { type: 'tool_call', id: 'call_time3', name: 'get_time', arguments: {}, argumentsText: '{}' },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'call_oslo1', name: 'get_weather', content: [{ type: 'text', text: '3C, cloudy' }], isError: false }],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'toolu_bergen2', name: 'get_weather', content: [{ type: 'text', text: '7C, rain' }], isError: false }],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: 'call_time3', name: 'get_time', content: [{ type: 'text', text: '12:00' }], isError: false }],
      },
    ],
  }),

  thinking: base({
    sampling: { maxTokens: 4096 },
    reasoning: { budgetTokens: 2048 },
    tools: [weatherTool],
    turns: [
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'I should call the tool.', signature: 'EqQBCgIYAhIMsig', origin: 'messages' },
          { type: 'tool_call', id: 'toolu_01A', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
        ],
      },
      { role: 'user', parts: [{ type: 'tool_result', callId: 'toolu_01A', name: 'get_weather', content: [{ type: 'text', text: '3C' }], isError: false }] },
    ],
  }),
};

export const CANONICAL_REPLIES: Record<string, Reply> = {
  text: {
    id: 'resp_text_1', model: 'test-model', stopReason: 'end',
    parts: [{ type: 'text', text: 'Rayleigh scattering.' }],
    usage: { source: 'reported', inputTokens: 12, cacheReadTokens: 30, outputTokens: 5 },
  },
  tools: {
    id: 'resp_tools_1', model: 'test-model', stopReason: 'tool_use',
    parts: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'call_a1', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' },
      { type: 'tool_call', id: 'call_b2', name: 'get_weather', arguments: { city: 'Bergen' }, argumentsText: '{"city":"Bergen"}' },
    ],
    usage: { source: 'reported', inputTokens: 100, outputTokens: 40, reasoningTokens: 10 },
  },
  limit: {
    id: 'resp_limit_1', model: 'test-model', stopReason: 'max_tokens',
    parts: [{ type: 'text', text: 'The answer is' }],
    usage: { source: 'reported', inputTokens: 9, outputTokens: 3 },
  },
};
