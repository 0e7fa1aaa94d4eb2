import { describe, expect, it } from 'vitest';
import type { Sampling } from './model.ts';
import { applySamplingRules, CHAT_SAMPLING, GENERATIVE_SAMPLING, MESSAGES_SAMPLING, RESPONSES_SAMPLING, type SamplingRule } from './sampling-rules.ts';

function apply(s: Sampling, rules: readonly SamplingRule[], style: string, reasoning: boolean) {
  const warnings: string[] = [];
  return { sampling: applySamplingRules(s, rules, style, reasoning, warnings), warnings };
}

const ALL: Sampling = { maxTokens: 10, temperature: 0.5, topP: 0.5, topK: 40, stop: ['x'], seed: 1, presencePenalty: 0.1, frequencyPenalty: 0.2 };

describe('sampling rules, one table per target style', () => {
  it.each([
    ['messages, no thinking', MESSAGES_SAMPLING, false, { maxTokens: 10, temperature: 0.5, topP: 0.5, topK: 40, stop: ['x'] }, 3],
    ['messages, thinking', MESSAGES_SAMPLING, true, { maxTokens: 10, topP: 0.95, stop: ['x'] }, 6],
    ['chat-completions, no reasoning', CHAT_SAMPLING, false, { maxTokens: 10, temperature: 0.5, topP: 0.5, stop: ['x'], seed: 1, presencePenalty: 0.1, frequencyPenalty: 0.2 }, 1],
    ['chat-completions, reasoning', CHAT_SAMPLING, true, { maxTokens: 10, stop: ['x'], seed: 1 }, 5],
    ['responses, no reasoning', RESPONSES_SAMPLING, false, { maxTokens: 10, temperature: 0.5, topP: 0.5 }, 5],
    ['responses, reasoning', RESPONSES_SAMPLING, true, { maxTokens: 10 }, 7],
    ['generative, thinking', GENERATIVE_SAMPLING, true, ALL, 0],
  ] as const)('%s', (_name, rules, reasoning, expected, warnings) => {
    const r = apply(ALL, rules, 'x', reasoning);
    expect(r.sampling).toEqual(expected);
    expect(r.warnings).toHaveLength(warnings);
  });

  it('keeps what is already allowed, and says which way a value moved', () => {
    expect(apply({ temperature: 1, topP: 0.97 }, MESSAGES_SAMPLING, 'messages', true)).toEqual({ sampling: { temperature: 1, topP: 0.97 }, warnings: [] });
    expect(apply({ temperature: 1.6 }, MESSAGES_SAMPLING, 'messages', false).warnings).toEqual(['temperature 1.6 was lowered to 1: the messages style allows only 0 to 1.']);
  });

  it('does not change the sampling it was given', () => {
    const s = { ...ALL };
    apply(s, RESPONSES_SAMPLING, 'responses', true);
    expect(s).toEqual(ALL);
  });
});
