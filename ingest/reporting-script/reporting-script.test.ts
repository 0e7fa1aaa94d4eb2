import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { minifyScript } from './minify-script.ts';
import { reportingScript, SCRIPT_FUNCTION, SCRIPT_MAX_BYTES, storeUrl } from './reporting-script.ts';

const KEY = '0123456789abcdef0123456789abcdef';

describe('minifyScript', () => {
  it('drops comments and whitespace but keeps literals byte for byte', () => {
    const src = `/* head */ var a = 'x  // y', b = "/* z */"; // tail
      var re = /a b\\/ [/]c/g; var t = \`  keep  \`;
      var c = a + +b; var d = a - -b; return a / 2;`;
    expect(minifyScript(src)).toBe(`var a='x  // y',b="/* z */";var re=/a b\\/ [/]c/g;var t=\`  keep  \`;var c=a+ +b;var d=a- -b;return a/2;`);
  });

  it('refuses unterminated literals and comments instead of producing broken code', () => {
    expect(() => minifyScript("var a = 'x")).toThrow(/unterminated string/);
    expect(() => minifyScript('var a = 1; /* x')).toThrow(/unterminated comment/);
    expect(() => minifyScript('var a = /x')).toThrow(/unterminated regular expression/);
  });
});

describe('the reporting script', () => {
  it('is valid JavaScript under 2 KB with a long public URL', () => {
    const publicUrl = 'https://errors.a-rather-long-company-name.example.com/tracking/errors';
    const { body, etag } = reportingScript(publicUrl, 123456, KEY);
    expect(Buffer.byteLength(body)).toBeLessThan(SCRIPT_MAX_BYTES);
    expect(() => new Script(body)).not.toThrow();
    expect(body).toContain(JSON.stringify(storeUrl(publicUrl, 123456, KEY)));
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(reportingScript(publicUrl, 123456, KEY).etag).toBe(etag);
    expect(reportingScript(publicUrl, 123457, KEY).etag).not.toBe(etag);
  });

  it('keeps at least 100 bytes of headroom under 2 KB with a 200-character public URL', () => {
    // The pages service inserts the script into every HTML page of a linked alias (docs/links.md): it stays small.
    const publicUrl = `https://${'e'.repeat(200 - 'https://'.length - '.example.com'.length)}.example.com`;
    expect(publicUrl).toHaveLength(200);
    // A ten-digit project id: four billion projects.
    const { body } = reportingScript(publicUrl, 4_000_000_000, KEY);
    expect(() => new Script(body)).not.toThrow();
    expect(SCRIPT_MAX_BYTES - Buffer.byteLength(body)).toBeGreaterThanOrEqual(100);
  });

  it('is the readable source, minified (the same tokens without comments)', () => {
    const source = readFileSync(new URL('./svc-errors.js', import.meta.url), 'utf8');
    expect(source.length).toBeGreaterThan(SCRIPT_FUNCTION.length * 1.5);
    expect(SCRIPT_FUNCTION).toMatch(/^\(function\(win,doc,url\)\{/);
    expect(SCRIPT_FUNCTION).not.toContain('/*');
    for (const literal of ["'unhandledrejection'", "'svc-errors'", '/^\\s*(?:at )?(?:(.*?) \\(|(.*?)@)?(.*?):(\\d+):(\\d+)\\)?$/']) {
      expect(SCRIPT_FUNCTION).toContain(literal);
    }
  });

  it('cannot close an inline script tag through the URL', () => {
    const { body } = reportingScript('https://x.example/</script><b>', 1, KEY);
    expect(body).not.toContain('</script>');
    expect(() => new Script(body)).not.toThrow();
  });
});
