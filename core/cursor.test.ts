import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.ts';

describe('cursors', () => {
  it('round-trips a keyset position', () => {
    const c = encodeCursor(['2026-01-01T00:00:00.000Z', 'abc']);
    expect(decodeCursor(c, 2)).toEqual(['2026-01-01T00:00:00.000Z', 'abc']);
  });

  it('refuses tampered, truncated or foreign cursors with invalid_cursor', () => {
    const c = encodeCursor(['a', 1]);
    const forged = Buffer.from(JSON.stringify(['z', 1])).toString('base64url') + c.slice(c.indexOf('.'));
    for (const bad of [forged, c.slice(0, -1), 'x', `${c}.x`, encodeCursor(['a']), '']) {
      expect(() => decodeCursor(bad, 2)).toThrowError(expect.objectContaining({ code: 'invalid_cursor' }));
    }
  });
});
