/**
 * Waiting for a usage record to be durable before the answer's last bytes go (run-call.ts), within a bound: the
 * writer resolves once the record is committed or fsynced to the node's journal, and stays pending only while
 * Postgres is unreachable and the journal is full. Past `boundMs` the answer completes anyway and the wait is
 * logged (docs/gateway.md, "Usage is durable before the answer ends"); the record stays queued in the writer. A
 * writer that fails is logged the same way: the client has been served, so the answer is not withheld for it.
 */
import type { Logger } from '../../core/logger.ts';

/** How long an answer's end waits at most for its usage record. */
export const DURABLE_WAIT_MS = 30_000;

const DONE: Promise<void> = Promise.resolve();

/** Resolves when `written` settles or `boundMs` passed, whichever comes first; never rejects. */
export function awaitDurable(written: unknown, log: Logger, about: Record<string, unknown>, boundMs = DURABLE_WAIT_MS): Promise<void> {
  // A writer that answers synchronously has nothing to wait for.
  if (!(written instanceof Promise)) return DONE;
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      log.error({ ...about, waitedMs: boundMs }, 'usage record not durable in time; the answer completes and the record stays queued');
      resolve();
    }, boundMs);
    timer.unref();
    written.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        log.error({ ...about, err }, 'usage record could not be made durable; the answer completes anyway');
        resolve();
      },
    );
  });
}
