/**
 * Failures the CLI reports, each with its exit status:
 *   1  the server refused (its error code and message are printed), or the CLI is not logged in / misconfigured
 *   2  the command line is wrong (unknown command, missing or bad option)
 *   3  the server could not be reached (the URL that was tried is printed)
 */
export type CliErrorKind = 'api' | 'config' | 'usage' | 'connection';

const MARK = Symbol.for('svc.cli-error');

export const EXIT_CODES: Record<CliErrorKind, number> = { api: 1, config: 1, usage: 2, connection: 3 };

export class CliError extends Error {
  readonly kind: CliErrorKind;
  /** For api errors: the HTTP status and the API's error object. */
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** For usage errors: the command whose --help to suggest. */
  readonly helpFor: string | undefined;
  readonly [MARK] = true;

  constructor(kind: CliErrorKind, message: string, extra: { status?: number; code?: string; details?: Record<string, unknown>; helpFor?: string } = {}) {
    super(message);
    this.kind = kind;
    this.status = extra.status;
    this.code = extra.code;
    this.details = extra.details;
    this.helpFor = extra.helpFor;
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}

export function isCliError(e: unknown): e is CliError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[MARK] === true;
}
