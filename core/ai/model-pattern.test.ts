import { describe, expect, it } from 'vitest';
import { allowsModel, bestMatch, matchesModel, modelNameProblem, modelPatternProblem } from './model-pattern.ts';

describe('model patterns', () => {
  it('matches exact ids and * anywhere, over the whole id', () => {
    expect(matchesModel('gpt-4o', 'gpt-4o')).toBe(true);
    expect(matchesModel('gpt-4o', 'gpt-4o-mini')).toBe(false);
    expect(matchesModel('gpt-4o*', 'gpt-4o-mini')).toBe(true);
    expect(matchesModel('claude-*', 'claude-sonnet-4-5')).toBe(true);
    expect(matchesModel('claude-*', 'xclaude-sonnet')).toBe(false);
    expect(matchesModel('*-mini', 'o4-mini')).toBe(true);
    expect(matchesModel('*-mini', 'o4-mini-high')).toBe(false);
    expect(matchesModel('gemini-*-flash', 'gemini-2.5-flash')).toBe(true);
    expect(matchesModel('*', 'anything/at:all')).toBe(true);
  });

  it('treats regex characters in ids literally', () => {
    expect(matchesModel('gpt-4.1*', 'gpt-401')).toBe(false);
    expect(matchesModel('gpt-4.1*', 'gpt-4.1-nano')).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(matchesModel('GPT-*', 'gpt-4o')).toBe(false);
  });

  it('allows everything with an empty list', () => {
    expect(allowsModel([], 'x')).toBe(true);
    expect(allowsModel(['a*', 'b'], 'b')).toBe(true);
    expect(allowsModel(['a*', 'b'], 'c')).toBe(false);
  });

  it('picks the most specific match', () => {
    expect(bestMatch(['*', 'claude-*', 'claude-opus-*'], 'claude-opus-4-6')).toBe('claude-opus-*');
    expect(bestMatch(['claude-*', 'claude-opus-4-6'], 'claude-opus-4-6')).toBe('claude-opus-4-6');
    expect(bestMatch(['gpt-*'], 'claude')).toBeUndefined();
  });

  it('explains bad ids and patterns', () => {
    expect(modelNameProblem('claude-sonnet-4-5@20250929')).toBeNull();
    expect(modelNameProblem('meta-llama/Llama-3.1-8B')).toBeNull();
    expect(modelNameProblem('qwen2.5:7b')).toBeNull();
    expect(modelNameProblem('')).toMatch(/empty/);
    expect(modelNameProblem('a b')).toMatch(/letters/);
    expect(modelNameProblem('gpt-*')).toMatch(/letters/);
    expect(modelNameProblem('x'.repeat(201))).toMatch(/longer/);
    expect(modelPatternProblem('gpt-*')).toBeNull();
    expect(modelPatternProblem('gpt-**')).toMatch(/\*\*/);
    expect(modelPatternProblem('gpt-?')).toMatch(/wildcard/);
  });
});
