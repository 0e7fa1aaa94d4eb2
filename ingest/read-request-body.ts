/**
 * Key first, body second: memory stays bounded whatever is sent (docs/errors.md, "Memory").
 *
 * 1. The key from the headers or the query string, checked against the project before a byte of the body is read.
 * 2. The body as sent, read from the socket into at most 20 MB, counted in the request's share of the inflate budget.
 * 3. Only when the key is nowhere but in the envelope header's `dsn`: the body inflated as far as its first newline
 *    (at most 64 KB), the key read there and checked, and only then the rest.
 * 4. The whole body decoded as a stream into at most the endpoint's limit, counted in the budget.
 *
 * The lease is the request's share of the budget: the caller releases it once the request is answered.
 */
import { isSvcError } from '../core/errors.ts';
import { extractClientKey, type ClientKey } from './lib/client-auth.ts';
import { decompressBody, parseContentEncoding, peekFirstLine, type TooLargeCode } from './lib/decompress-body.ts';
import type { BudgetLease } from './lib/inflate-budget.ts';
import { ENVELOPE_MAX_BYTES } from './lib/ingest-limits.ts';
import { outcomeFromError } from './lib/item-outcome.ts';
import { readRawBody } from './lib/read-raw-body.ts';
import { authorizeClient } from './client-authorizer.ts';
import type { IngestDeps, IngestRequest } from './ingest-deps.ts';
import type { IngestProject } from './project-lookup.ts';
import { peekEnvelopeDsn } from './read-event-payload.ts';

export interface AuthorizedBody {
  project: IngestProject;
  /** The decoded body. */
  body: Buffer;
  /** The key of the headers or query, when there was one (undefined: it came from the envelope's dsn). */
  headerKey: ClientKey | undefined;
}

export interface BodyLimits {
  maxBytes: number;
  tooLarge: TooLargeCode;
  /** Whether the key may be in the body's first line (the envelope header's dsn). */
  keyInBody: boolean;
}

export async function readAuthorizedBody(deps: IngestDeps, req: IngestRequest, projectId: number, lease: BudgetLease, limits: BodyLimits): Promise<AuthorizedBody> {
  const encoding = headerValue(req.headers['content-encoding']);
  parseContentEncoding(encoding); // an unknown coding is refused before anything is read
  const headerKey = limits.keyInBody ? keyOfRequest(req) : extractClientKey({ headers: req.headers, query: req.query });
  let project = headerKey ? await authorizeClient(deps.lookup, projectId, headerKey) : undefined;

  let raw: Buffer | undefined;
  try {
    raw = await readRawBody(req.body, ENVELOPE_MAX_BYTES, lease, headerValue(req.headers['content-length']));
  } catch (e) {
    if (project) countRefusal(deps, project.id, e);
    throw e;
  }
  if (!project) {
    const dsn = peekEnvelopeDsn(await peekFirstLine(raw, encoding, lease));
    project = await authorizeClient(deps.lookup, projectId, extractClientKey({ headers: req.headers, query: req.query, envelopeDsn: dsn }));
  }
  try {
    const body = await decompressBody(raw, encoding, limits.maxBytes, limits.tooLarge, lease);
    // The compressed bytes are dropped here; only the decoded body stays held until the answer.
    if (body !== raw) lease.drop(raw.length);
    raw = undefined;
    return { project, body, headerKey };
  } catch (e) {
    countRefusal(deps, project.id, e);
    throw e;
  }
}

/** Runs `receive` with the request's share of the inflate budget, given back once it has answered. */
export async function withBodyLease<T>(deps: IngestDeps, receive: (lease: BudgetLease) => Promise<T>): Promise<T> {
  const lease = deps.inflateBudget.lease();
  try {
    return await receive(lease);
  } finally {
    lease.release();
  }
}

/** The key of the headers or the query string, or undefined when there is none there. */
function keyOfRequest(req: IngestRequest): ClientKey | undefined {
  try {
    return extractClientKey({ headers: req.headers, query: req.query });
  } catch (e) {
    if (isSvcError(e) && e.code === 'missing_client_key') return undefined;
    throw e;
  }
}

/** A refused body of a known project is its event's outcome (a client that went away is not counted). */
function countRefusal(deps: IngestDeps, projectId: number, e: unknown): void {
  const outcome = outcomeFromError(e);
  if (outcome) deps.outcomes.add(projectId, deps.ctx.clock.now(), outcome, 'error');
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}
