/** What the ingest endpoints share: lookups, limits, outcome counts and the writer's queue. */
import type { AppContext } from '../core/context.ts';
import type { Readable } from 'node:stream';
import type { HeaderBag, QueryBag } from './lib/client-auth.ts';
import type { InflateBudget } from './lib/inflate-budget.ts';
import type { IngestLimiter } from './ingest-limiter.ts';
import type { OutcomeCounter } from './outcome-counter.ts';
import type { ProjectLookup } from './project-lookup.ts';
import type { BatchWriter } from './writer/batch-writer.ts';

export interface IngestDeps {
  ctx: AppContext;
  lookup: ProjectLookup;
  limiter: IngestLimiter;
  outcomes: OutcomeCounter;
  writer: BatchWriter;
  /** Request body bytes held in memory by all requests at once (read or decoded). */
  inflateBudget: InflateBudget;
}

/** One ingest request, as the endpoints read it. */
export interface IngestRequest {
  /** The `{project}` path segment, unparsed. */
  projectParam: string;
  headers: HeaderBag;
  query: QueryBag;
  /** The body as sent (possibly compressed): the request stream, read only once the key is known. */
  body: Readable | Buffer;
  clientIp: string;
}

/** The reply: the event id, or nothing when the envelope carried no event. */
export interface IngestReply {
  id?: string;
}
