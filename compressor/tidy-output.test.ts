import { describe, expect, it } from 'vitest';
import { repeatMarker, tidyOutput, tidyWhitespace } from './tidy-output.ts';
import { cutOutput } from './cut-output.ts';
import { DEFAULT_COMPRESS_OPTIONS } from './compress-options.ts';

describe('tidyOutput', () => {
  it('removes colour codes and keeps the last state of a redrawn line', () => {
    const r = tidyOutput('\x1b[32m ✓ \x1b[39m ok\r\nprogress 10%\rprogress 100%\nend');
    expect(r.text).toBe(' ✓  ok\nprogress 100%\nend');
    expect(r.ansi).toBeGreaterThan(0);
  });

  it('collapses a run of identical lines to the line and a count', () => {
    const r = tidyOutput(['start', ...Array(50).fill('waiting…'), 'done'].join('\n'));
    expect(r.text).toBe(`start\nwaiting…\n${repeatMarker(49)}\ndone`);
  });

  it('leaves two identical lines and runs of blank lines to the whitespace step', () => {
    expect(tidyOutput('a\na\nb').text).toBe('a\na\nb');
    expect(tidyOutput('a  \n\n\n\n  b').text).toBe('a\n\n  b');
  });

  it('cuts trailing spaces and tabs of every line and keeps indentation', () => {
    expect(tidyOutput('  if (a) {  \n\t\treturn 1;\t \n  }\t').text).toBe('  if (a) {\n\t\treturn 1;\n  }');
    expect(tidyOutput('x  \u2028y \u2029z ').text).toBe('x\u2028y\u2029z');
    expect(tidyOutput('   \n \t\n').text).toBe('\n\n');
  });

  it('tidies whitespace as the multiline pattern says, on any mix of blanks and line ends', () => {
    // The pattern is the definition (it was the implementation); it is too slow on long indented outputs.
    const oracle = (t: string) => t.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n');
    const alphabet = [' ', '\t', '\n', 'a', '\r', '\u2028', '\u2029', '}'];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      const text = Array.from({ length: Math.floor(next() * 30) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect(tidyWhitespace(text), JSON.stringify(text)).toBe(oracle(text));
    }
  });

  it('minifies JSON, but not when a number would lose digits', () => {
    expect(tidyOutput('{\n  "a": [1, 2],\n  "b": "x  y"\n}').text).toBe('{"a":[1,2],"b":"x  y"}');
    const big = '{\n  "id": 12345678901234567890\n}';
    expect(tidyOutput(big).text).toBe(big);
    expect(tidyOutput('{ not json').text).toBe('{ not json');
  });
});

describe('cutOutput', () => {
  const opts = { ...DEFAULT_COMPRESS_OPTIONS, hugeOutputTokens: 100, keepHeadTokens: 20, keepTailTokens: 20 };

  it('keeps head, tail and the lines naming errors, with a marker saying what was cut', () => {
    const lines = Array.from({ length: 200 }, (_, i) => (i === 100 ? 'Error: ENOENT src/a.ts' : `line ${i}`));
    const out = cutOutput(lines.join('\n'), opts);
    expect(out.startsWith('line 0\n')).toBe(true);
    expect(out.endsWith('line 199')).toBe(true);
    expect(out).toContain('Error: ENOENT src/a.ts');
    expect(out).toMatch(/\[svc: \d+ lines \(\d+ characters\) cut from the middle of this output; the 1 lines of it naming errors or failures follow\]/);
    expect(out.length).toBeLessThan(lines.join('\n').length / 4);
  });

  it('cuts one huge line by characters and leaves small outputs alone', () => {
    const line = 'x'.repeat(2000);
    const out = cutOutput(line, opts);
    expect(out).toContain('[svc: 1 lines (1840 characters) cut');
    expect(out.length).toBeLessThan(400);
    expect(cutOutput('short', opts)).toBe('short');
  });
});
