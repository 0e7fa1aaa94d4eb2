/**
 * How the durable writer tells a failed commit about the database (retry it: journal, backoff) from one about a
 * row's content (split the batch, report the row), and how long it waits before trying the database again.
 */
import { isTransientDbError } from '../db/transient-db-error.ts';

/** SQLSTATE classes that mean "this row's content": data exception, integrity constraint violation, program limit. */
const ROW_CLASSES = new Set(['22', '23', '54']);

const MAX_BACKOFF_MS = 5_000;

/**
 * Whether a commit failure is about the database rather than the rows: a transient failure (connection,
 * deadlock, shutdown), or any other SQLSTATE outside the row classes (a missing table, an internal error), which no
 * split of the batch would fix. An error without a SQLSTATE comes from the writer's own code for a row.
 */
export function isRetryable(err: unknown): boolean {
  if (isTransientDbError(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !ROW_CLASSES.has(code.slice(0, 2));
}

/** The next wait: 100 ms, doubling up to 5 s. */
export function nextBackoff(ms: number): number {
  return Math.min(MAX_BACKOFF_MS, ms === 0 ? 100 : ms * 2);
}

/** Jitter, so that two writers that just deadlocked each other do not meet again in lockstep. */
export function jitter(ms: number): number {
  return Math.round(ms * (0.5 + Math.random()));
}

/** The reason reported for a refused row: its SQLSTATE and message, at most 200 characters. */
export function failureReason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return (typeof e?.code === 'string' ? `${e.code}: ${message}` : message).slice(0, 200);
}
