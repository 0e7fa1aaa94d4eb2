/**
 * Whether a database failure is worth retrying unchanged: the connection (SQLSTATE class 08, socket errors), a
 * deadlock or serialisation failure (class 40), exhausted resources (class 53) or an administrator's shutdown
 * (57P01-57P03). Anything else (a constraint, a bad value) fails again the same way.
 * @see https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
const TRANSIENT_CLASSES = new Set(['08', '40', '53']);
const TRANSIENT_CODES = new Set(['57P01', '57P02', '57P03', '55P03']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function isTransientDbError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_CLASSES.has(code.slice(0, 2)) || TRANSIENT_CODES.has(code);
    if (SOCKET_CODES.has(code)) return true;
  }
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}
