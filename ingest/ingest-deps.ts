/** What the ingest endpoints share: lookups, limits, outcome counts and the writer's queue. */
import type { AppContext } from '../core/context.ts';
import type { HeaderBag, QueryBag } from './lib/client-auth.ts';
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
}

/** One ingest request, as the endpoints read it. */
export interface IngestRequest {
  /** The `{project}` path segment, unparsed. */
  projectParam: string;
  headers: HeaderBag;
  query: QueryBag;
  /** The raw (possibly compressed) body. */
  body: Buffer;
  clientIp: string;
}

/** The reply: the event id, or nothing when the envelope carried no event. */
export interface IngestReply {
  id?: string;
}
