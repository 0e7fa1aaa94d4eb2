import { describe, expect, it } from 'vitest';
import { parseTtl } from './ttl.ts';

describe('parseTtl', () => {
  it.each([
    [3600, 3600],
    ['3600', 3600],
    ['90s', 90],
    ['15m', 900],
    ['12h', 43200],
    ['3d', 259200],
    ['2w', 1209600],
    ['never', null],
  ])('%s → %s seconds', (input, out) => expect(parseTtl(input)).toBe(out));

  it.each(['', '12x', '-5', '0', 0, 1.5, '3 d', 'forever', {}, '99999999999d'])('refuses %j with invalid_ttl', (input) => {
    expect(() => parseTtl(input)).toThrowError(expect.objectContaining({ code: 'invalid_ttl', status: 400 }));
  });
});
