/**
 * The list envelope {"items":[…],"next_cursor":…} with `limit` (default 50, maximum 200; out of range → 400
 * invalid_limit) and an opaque keyset `cursor` (tampered → 400 invalid_cursor).
 */
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { svcError } from '../errors.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface ListParams {
  limit: number;
  /** The sort key of the last item already seen, or null for the first page. */
  after: (string | number)[] | null;
}

export function parseListParams(query: { limit?: unknown; cursor?: unknown }, arity: number): ListParams {
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined && query.limit !== '') {
    const n = Number(query.limit);
    if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw svcError('invalid_limit', `The limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    limit = n;
  }
  let after: (string | number)[] | null = null;
  if (typeof query.cursor === 'string' && query.cursor !== '') after = decodeCursor(query.cursor, arity);
  else if (query.cursor !== undefined && query.cursor !== '') throw svcError('invalid_cursor');
  return { limit, after };
}

/** Rows fetched with LIMIT limit+1: the extra row tells that a next page exists. */
export function listEnvelope<R, I>(rows: R[], limit: number, keyOf: (row: R) => (string | number)[], toItem: (row: R) => I): { items: I[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? encodeCursor(keyOf(page[page.length - 1])) : null;
  return { items: page.map(toItem), next_cursor: next };
}

/** Query-string schema shared by every list route. */
export const LIST_QUERY = {
  limit: { type: 'string', description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` },
  cursor: { type: 'string', description: 'Opaque cursor from next_cursor of the previous page.' },
} as const;
