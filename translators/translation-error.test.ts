import { describe, expect, it } from 'vitest';
import { isTranslationError, translationError } from './translation-error.ts';

describe('translation-error', () => {
  it('marks translation errors', () => {
    const e = translationError('bad', 'n');
    expect(isTranslationError(e)).toBe(true);
    expect(e.param).toBe('n');
    expect(isTranslationError(new Error('bad'))).toBe(false);
  });
});
