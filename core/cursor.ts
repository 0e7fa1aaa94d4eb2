/**
 * Opaque keyset cursors: the sort key of the last item, base64url JSON with a short MAC so that a tampered cursor is
 * refused with 400 invalid_cursor instead of reaching SQL.
 */
import { createHmac } from 'node:crypto';
import { svcError } from './errors.ts';

let macKey = 'svc-cursor';

/** Set once at start from the instance secret so cursors cannot be forged across instances. */
export function setCursorKey(key: string): void {
  macKey = key;
}

function mac(payload: string): string {
  return createHmac('sha256', macKey).update(payload).digest('base64url').slice(0, 12);
}

export function encodeCursor(key: readonly (string | number)[]): string {
  const payload = Buffer.from(JSON.stringify(key)).toString('base64url');
  return `${payload}.${mac(payload)}`;
}

export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  const [payload, sig, extra] = cursor.split('.');
  if (!payload || !sig || extra !== undefined || mac(payload) !== sig) throw svcError('invalid_cursor');
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw svcError('invalid_cursor');
  }
  if (!Array.isArray(key) || key.length !== arity || !key.every((k) => typeof k === 'string' || typeof k === 'number')) {
    throw svcError('invalid_cursor');
  }
  return key;
}
