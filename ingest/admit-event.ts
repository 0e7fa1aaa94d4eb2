/**
 * The last steps of the fast path for a request that carries an event: reserve a place in the writer's queue
 * (503 ingest_queue_full when there is none, journal_full when the database is down and the node's journal is
 * full), check the rate limits (429), prepare the event from the payload the caller parsed (scrub, normalise,
 * group: each event is parsed once), then queue it and wait until it is durable: committed to the ingest
 * inbox in Postgres, or fsynced to the node's journal (issue 11: acknowledged means durable); it is processed after
 * the answer (writer/batch-writer.ts). On a refusal every item of the request is counted as rate_limited with the
 * refusal's code, and the refusal is rethrown. An event the inbox insert refuses for its content is counted invalid
 * (invalid_event) with the other items, and answered 400.
 */
import { isSvcError, svcError } from '../core/errors.ts';
import type { DataCategory } from './lib/data-category.ts';
import { invalid, rateLimited, type RateLimitReason } from './lib/item-outcome.ts';
import type { IngestDeps } from './ingest-deps.ts';
import type { IngestProject } from './project-lookup.ts';
import { prepareParsed } from './writer/prepare-queued.ts';
import type { QueuedEvent } from './writer/queued-event.ts';

export interface CountedItem {
  category: DataCategory;
  quantity: number;
}

export async function admitEvent(
  deps: IngestDeps,
  project: IngestProject,
  event: Omit<QueuedEvent, 'bytes' | 'project'>,
  bytes: number,
  items: readonly CountedItem[],
  parsed?: Record<string, unknown>,
): Promise<void> {
  const refuse = (reason: RateLimitReason) => {
    const now = deps.ctx.clock.now();
    for (const item of items) deps.outcomes.add(project.id, now, rateLimited(reason), item.category, item.quantity);
  };
  let slot;
  try {
    slot = deps.writer.reserve(bytes);
  } catch (e) {
    refuse(queueRefusal(e));
    throw e;
  }
  try {
    await deps.limiter.admitEvent(project);
  } catch (e) {
    slot.release();
    if (isSvcError(e) && (e.code === 'project_events_per_minute' || e.code === 'team_errors_events')) {
      refuse(e.code);
      throw e;
    }
    refuse('counters_unavailable');
    deps.ctx.log.error({ err: e }, 'ingest limits could not be checked');
    throw svcError('counters_unavailable');
  }
  const queued: QueuedEvent = { ...event, project, bytes };
  // Prepared here from the payload the fast path parsed, so that the writer does not parse it again.
  const prepared = parsed ? prepareParsed(queued, parsed) : undefined;
  if (prepared) queued.prepared = prepared;
  let result;
  try {
    result = await slot.commit(queued);
  } catch (e) {
    refuse(queueRefusal(e));
    throw e;
  }
  if (result.status === 'rejected') {
    const now = deps.ctx.clock.now();
    for (const item of items) deps.outcomes.add(project.id, now, invalid('invalid_event'), item.category, item.quantity);
    throw svcError('invalid_event', 'The event could not be stored: the database refused its content.');
  }
}

function queueRefusal(e: unknown): RateLimitReason {
  return isSvcError(e) && e.code === 'journal_full' ? 'journal_full' : 'ingest_queue_full';
}
