import { describe, expect, it } from 'vitest';
import { unset } from './event-values.ts';

describe('unset', () => {
  it('removes an own key and says whether there was one', () => {
    const o: Record<string, unknown> = { a: 1, b: undefined };
    expect(unset(o, 'a')).toBe(true);
    expect(unset(o, 'b')).toBe(true);
    expect(unset(o, 'c')).toBe(false);
    expect(unset(o, 'toString')).toBe(false);
    expect(o).toEqual({});
  });
});
