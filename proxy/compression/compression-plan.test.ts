import { describe, expect, it } from 'vitest';
import type { CompressionMode, CompressionSettings } from '../../core/ai/compression-settings.ts';
import { toGatewayKey } from '../keys/key-store.ts';
import { headerMode, planCompression } from './compression-plan.ts';

const key = (compression: CompressionMode | null, team: CompressionMode | null) =>
  toGatewayKey({ id: 'key_1', team_id: 'team_1', owner_user_id: null, name: 'k', allowed_models: [], limits: {}, log_bodies: 'off', compression, team_compression: team });
const settings = (mode: CompressionMode, rules: CompressionSettings['rules'] = []): CompressionSettings => ({ mode, keepLastTurns: 4, rules, summary: null, updatedAt: null });

describe('planCompression: the lowest of instance, rule, team and key; the header only lowers', () => {
  // [instance, rule, team, key, header, expected]
  const cases: [CompressionMode, CompressionMode | undefined, CompressionMode | null, CompressionMode | null, CompressionMode | undefined, CompressionMode][] = [
    ['off', undefined, null, null, undefined, 'off'],
    ['off', 'on', 'on', 'on', 'on', 'off'],
    ['on', undefined, null, null, undefined, 'on'],
    ['on', 'audit-only', null, null, undefined, 'audit-only'],
    ['on', undefined, 'audit-only', null, undefined, 'audit-only'],
    ['on', undefined, null, 'off', undefined, 'off'],
    ['audit-only', undefined, 'on', 'on', undefined, 'audit-only'],
    ['on', 'on', 'on', 'on', 'off', 'off'],
    ['on', undefined, null, null, 'audit-only', 'audit-only'],
    ['audit-only', undefined, null, null, 'on', 'audit-only'],
    ['on', 'off', 'on', 'on', 'on', 'off'],
  ];
  it.each(cases)('instance %s, rule %s, team %s, key %s, header %s → %s', (instance, rule, team, k, header, expected) => {
    const s = settings(instance, rule ? [{ pattern: 'claude-*', mode: rule }] : []);
    expect(planCompression(s, key(k, team), header, 'claude-sonnet-4-6', 'messages').mode).toBe(expected);
  });

  it('applies the most specific rule and its thresholds; other models keep the instance defaults', () => {
    const s = settings('on', [{ pattern: 'claude-*', mode: 'audit-only' }, { pattern: 'claude-haiku-*', min_tokens: 100, keep_last_turns: 9 }]);
    const haiku = planCompression(s, key(null, null), undefined, 'claude-haiku-4-5', 'messages');
    expect(haiku.mode).toBe('on');
    expect(haiku.options).toMatchObject({ minTokens: 100, keepLastTurns: 9 });
    expect(planCompression(s, key(null, null), undefined, 'claude-sonnet-4-6', 'messages').mode).toBe('audit-only');
    expect(planCompression(s, key(null, null), undefined, 'gpt-4o', 'chat').options.keepLastTurns).toBe(4);
  });

  it('drops old reasoning only for targets that ignore it', () => {
    const s = settings('on');
    expect(planCompression(s, key(null, null), undefined, 'claude-sonnet-4-20250514', 'messages').options.dropOldReasoning).toBe(true);
    expect(planCompression(s, key(null, null), undefined, 'claude-opus-4-5', 'messages').options.dropOldReasoning).toBe(false);
    expect(planCompression(s, key(null, null), undefined, 'gemini-2.5-pro', 'generative').options.dropOldReasoning).toBe(false);
  });
});

describe('headerMode', () => {
  it('reads the three modes and refuses anything else, naming the header', () => {
    expect(headerMode({})).toBeUndefined();
    expect(headerMode({ 'x-svc-compress': ' Audit-Only ' })).toBe('audit-only');
    expect(() => headerMode({ 'x-svc-compress': 'max' })).toThrow(/X-Svc-Compress/);
  });
});
