import { describe, expect, it } from 'vitest';
import type { Conversation } from './model.ts';
import { countConversationTokens, estimateTextTokens } from './count-tokens.ts';

const base: Conversation = { model: 'm', system: [], turns: [], tools: [], sampling: {}, stream: false, extras: {}, warnings: [] };

describe('count-tokens', () => {
  it('counts text with o200k_base, special-token strings as ordinary text', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('Hello world')).toBe(2);
    expect(estimateTextTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('grows with every kind of content and stays deterministic', () => {
    const empty = countConversationTokens(base);
    const withText: Conversation = { ...base, system: [{ type: 'text', text: 'Be brief.' }], turns: [{ role: 'user', parts: [{ type: 'text', text: 'What is the weather in Oslo today?' }] }] };
    const withTools: Conversation = {
      ...withText,
      tools: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      turns: [...withText.turns, { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'get_weather', arguments: { city: 'Oslo' }, argumentsText: '{"city":"Oslo"}' }] }],
    };
    const withImage: Conversation = { ...withTools, turns: [...withTools.turns, { role: 'user', parts: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] }] };
    const a = countConversationTokens(withText);
    const b = countConversationTokens(withTools);
    const c = countConversationTokens(withImage);
    expect(empty).toBe(3);
    expect(a).toBeGreaterThan(empty + 10);
    expect(b).toBeGreaterThan(a + 15);
    expect(c).toBeGreaterThan(b + 1000);
    expect(countConversationTokens(withImage)).toBe(c);
  });
});
