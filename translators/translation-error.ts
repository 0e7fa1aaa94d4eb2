/**
 * The one error translators throw: a request the target style cannot express and that must not be sent half-done
 * (for example `n > 1` to an upstream without candidates, or a body that is not an object). The proxy answers it as
 * a 400 `invalid_request` in the caller's style. Recognised by a marker, not `instanceof`.
 */

const MARK = Symbol.for('svc.translation_error');

export interface TranslationError extends Error {
  readonly [MARK]: true;
  /** The offending request field, e.g. `n` or `messages[2].content`. */
  readonly param?: string;
}

export function translationError(message: string, param?: string): TranslationError {
  const err = new Error(message) as Error & { [MARK]: true; param?: string };
  err.name = 'TranslationError';
  err[MARK] = true;
  if (param !== undefined) err.param = param;
  return err;
}

export function isTranslationError(e: unknown): e is TranslationError {
  return typeof e === 'object' && e !== null && (e as { [MARK]?: unknown })[MARK] === true;
}
