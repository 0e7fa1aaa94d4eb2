import { describe, expect, it } from 'vitest';
import { makeToolCallId, sanitizeMessagesToolId } from './tool-ids.ts';

describe('tool-ids', () => {
  it('makes deterministic ids and sanitises foreign ids without collisions', () => {
    expect(makeToolCallId('toolu_', 'r', 1)).toBe(makeToolCallId('toolu_', 'r', 1));
    expect(makeToolCallId('toolu_', 'r', 1)).not.toBe(makeToolCallId('toolu_', 'r', 2));
    expect(makeToolCallId('call_', 'x')).toMatch(/^call_[0-9a-f]{16}$/);
    expect(sanitizeMessagesToolId('toolu_01AB-c')).toBe('toolu_01AB-c');
    const a = sanitizeMessagesToolId('call.a/1');
    const b = sanitizeMessagesToolId('call_a_1');
    expect(a).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(sanitizeMessagesToolId('call.a/1')).toBe(a);
  });
});
