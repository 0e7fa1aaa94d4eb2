import { describe, expect, it } from 'vitest';
import { newEventId, normalizeEventId, tryNormalizeEventId } from './event-id.ts';

describe('event ids', () => {
  it('normalises 32-hex and UUID forms to 32 lowercase hex', () => {
    expect(normalizeEventId('9EC79C33EC9942AB8353589FCB2E04DC')).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
    expect(normalizeEventId('9ec79c33-ec99-42ab-8353-589fcb2e04dc')).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
    expect(normalizeEventId(' {9EC79C33-EC99-42AB-8353-589FCB2E04DC} ')).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
  });

  it('refuses anything else with 400 invalid_event_id', () => {
    for (const bad of ['', 'xyz', '9ec79c33ec9942ab8353589fcb2e04d', '9ec79c33ec9942ab8353589fcb2e04dcc', '9ec79c33-ec9942ab-8353-589fcb2e04dc', 42, null, {}]) {
      expect(tryNormalizeEventId(bad)).toBeUndefined();
      expect(() => normalizeEventId(bad)).toThrow(expect.objectContaining({ code: 'invalid_event_id', status: 400 }));
    }
  });

  it('generates fresh ids in the normal form', () => {
    const a = newEventId();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(newEventId()).not.toBe(a);
  });
});
