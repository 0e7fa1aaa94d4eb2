import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS, errorBody, isSvcError, svcError } from './errors.ts';

describe('the error catalogue', () => {
  it('has unique snake_case codes with a 4xx/5xx status and a sentence', () => {
    const source = readFileSync(new URL('./errors.ts', import.meta.url), 'utf8');
    const declared = [...source.matchAll(/^\s+([a-z0-9_]+): def\(/gm)].map((m) => m[1]);
    expect(new Set(declared).size).toBe(declared.length);
    expect(declared.length).toBe(Object.keys(ERRORS).length);
    for (const [code, def] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(def.status).toBeGreaterThanOrEqual(400);
      expect(def.status).toBeLessThan(600);
      expect(def.message).toMatch(/^[A-Z].*[.)]$/);
    }
  });

  it('builds errors recognised by marker, with the family shape', () => {
    const e = svcError('not_found', 'Team x was not found.', { id: 'x' });
    expect(isSvcError(e)).toBe(true);
    expect(isSvcError(new Error('x'))).toBe(false);
    expect(e.status).toBe(404);
    expect(errorBody(e)).toEqual({ error: { code: 'not_found', message: 'Team x was not found.', details: { id: 'x' } } });
  });
});
