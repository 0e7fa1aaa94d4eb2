import { describe, expect, it } from 'vitest';
import { parseTimestamp } from './parse-timestamp.ts';

const iso = (v: unknown) => parseTimestamp(v)?.toISOString();

describe('parseTimestamp', () => {
  it.each([
    ['2024-05-06T07:08:09Z', '2024-05-06T07:08:09.000Z'],
    ['2024-05-06T07:08:09.123456Z', '2024-05-06T07:08:09.123Z'],
    ['2024-05-06T07:08:09.1Z', '2024-05-06T07:08:09.100Z'],
    ['2024-05-06T07:08:09', '2024-05-06T07:08:09.000Z'],
    ['2024-05-06 07:08:09', '2024-05-06T07:08:09.000Z'],
    ['2024-05-06T07:08:09+02:00', '2024-05-06T05:08:09.000Z'],
    ['2024-05-06T07:08:09-0130', '2024-05-06T08:38:09.000Z'],
    ['2024-05-06T07:08:09.5+00:00', '2024-05-06T07:08:09.500Z'],
    ['2024-05-06', '2024-05-06T00:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('reads the RFC 3339 string %s (no zone = UTC)', (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it('reads epoch seconds, float allowed, also as a numeric string', () => {
    expect(iso(1714979289)).toBe('2024-05-06T07:08:09.000Z');
    expect(iso(1714979289.25)).toBe('2024-05-06T07:08:09.250Z');
    expect(iso('1714979289.5')).toBe('2024-05-06T07:08:09.500Z');
  });

  it.each([
    [''], ['yesterday'], ['2024-13-01T00:00:00Z'], ['2023-02-29T00:00:00Z'], ['2024-05-06T25:00:00Z'],
    ['2024-05-06T07:08:09+25:00'], ['0070-01-01T00:00:00Z'], [Number.NaN], [Number.POSITIVE_INFINITY], [-5], [1e20],
    [null], [{}], [[2024]], [true],
  ])('refuses %s', (input) => {
    expect(parseTimestamp(input)).toBeUndefined();
  });
});
