/**
 * Why the embedded database refuses to start: a stable snake_case code and a sentence saying what to do. A kind of
 * ConfigError, so main.js prints the sentence alone and exits with 78 (the operator has to act, a restart will not
 * help).
 */
import { ConfigError } from '../config.ts';

export class EmbeddedDbError extends ConfigError {
  readonly code: string;
  constructor(code: string, sentence: string, options?: { cause?: unknown }) {
    super('SVC_DATA_DIR', sentence);
    this.code = code;
    this.message = `The embedded database did not start (${code}): ${sentence}`;
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
