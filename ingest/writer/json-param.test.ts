import { describe, expect, it } from 'vitest';
import { jsonParam, repair } from './json-param.ts';

describe('jsonParam', () => {
  it('passes clean rows through as JSON', () => {
    const rows = [{ a: 'text \\u0000 written out', b: [1, { c: 'é' }] }];
    expect(jsonParam(rows)).toBe(JSON.stringify(rows));
  });

  it('repairs NUL characters and lone surrogates in values and keys, which jsonb refuses', () => {
    const rows = [{ 'k\u0000ey': 'a\u0000b', lone: 'x\ud800y', pair: '😀', nested: [{ v: '\udc00' }] }];
    const out = JSON.parse(jsonParam(rows));
    expect(out).toEqual([{ 'k\ufffdey': 'a\ufffdb', lone: 'x\ufffdy', pair: '😀', nested: [{ v: '\ufffd' }] }]);
    expect(jsonParam(rows)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });

  it('keeps own __proto__ keys as data', () => {
    const obj = JSON.parse('{"__proto__":{"x":"\\u0000"}}');
    const fixed = repair(obj) as Record<string, unknown>;
    expect(Object.keys(fixed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
