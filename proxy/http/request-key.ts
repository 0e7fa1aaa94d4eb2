/**
 * Where a gateway key may travel (DESIGN.md §3, step 2): `Authorization: Bearer` (chat-style SDKs), `x-api-key`
 * (messages-style SDKs), `x-goog-api-key` (the Google SDK), `x-gl-api-key`, or the `key` query parameter
 * (generative-language style). The first one present wins.
 */
import type { FastifyRequest } from 'fastify';

const BEARER = /^Bearer\s+(.+)$/i;

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

export function requestKey(req: FastifyRequest): string | undefined {
  const h = req.headers;
  const auth = one(h.authorization);
  if (auth !== undefined) {
    const m = BEARER.exec(auth);
    if (m) return m[1].trim();
  }
  const fromHeader = one(h['x-api-key']) ?? one(h['x-goog-api-key']) ?? one(h['x-gl-api-key']);
  if (fromHeader !== undefined) return fromHeader.trim();
  const q = req.query as Record<string, unknown> | undefined;
  return typeof q?.key === 'string' && q.key !== '' ? q.key : undefined;
}
