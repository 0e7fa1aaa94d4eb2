import { describe, expect, it } from 'vitest';
import { storableText } from './storable-text.ts';

describe('storableText', () => {
  it('returns a clean string unchanged (same value, including astral characters and other controls)', () => {
    for (const s of ['', 'gpt-4o', 'émoji 😀 ok', 'tab\tand\nnewline', '\u0001\u007f']) expect(storableText(s)).toBe(s);
  });

  it.each([
    ['ok-model\u0000', 'ok-model\uFFFD'],
    ['\u0000\u0000', '\uFFFD\uFFFD'],
    ['a\uD800b', 'a\uFFFDb'],
    ['a\uDC00b', 'a\uFFFDb'],
    ['end\uD83D', 'end\uFFFD'],
    ['\uDE00start', '\uFFFDstart'],
    ['\uDC00\uD800', '\uFFFD\uFFFD'],
    ['pair 😀 then lone \uD83D and \u0000', 'pair 😀 then lone \uFFFD and \uFFFD'],
  ])('%j → %j', (input, out) => {
    const got = storableText(input);
    expect(got).toBe(out);
    expect(got.isWellFormed()).toBe(true);
    expect(got.includes('\u0000')).toBe(false);
  });
});
