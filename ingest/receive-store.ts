/**
 * `POST /api/{project}/store/`: the legacy endpoint, one event JSON per request. The body may be compressed with
 * a Content-Encoding, or (as old SDKs send it) base64 of zlib-compressed JSON with no header at all. The event is
 * kept when its `type` is an error or default event (or absent); a transaction posted here is accepted and
 * dropped like a transaction item.
 */
import { decodeLegacyStoreBody } from './lib/decompress-body.ts';
import type { BudgetLease } from './lib/inflate-budget.ts';
import { EVENT_MAX_BYTES } from './lib/ingest-limits.ts';
import { classifyStoreEvent, invalidFromError, outcomeFromError } from './lib/item-outcome.ts';
import { admitEvent } from './admit-event.ts';
import { parseProjectId } from './client-authorizer.ts';
import type { IngestDeps, IngestReply, IngestRequest } from './ingest-deps.ts';
import { readEventPayload, type EventPayload } from './read-event-payload.ts';
import { readAuthorizedBody, withBodyLease } from './read-request-body.ts';

export async function receiveStore(deps: IngestDeps, req: IngestRequest): Promise<IngestReply> {
  const projectId = parseProjectId(req.projectParam);
  return withBodyLease(deps, (lease) => receive(deps, req, projectId, lease));
}

async function receive(deps: IngestDeps, req: IngestRequest, projectId: number, lease: BudgetLease): Promise<IngestReply> {
  const limits = { maxBytes: EVENT_MAX_BYTES, tooLarge: 'event_too_large', keyInBody: false } as const;
  const { project, body } = await readAuthorizedBody(deps, req, projectId, lease, limits);
  const now = deps.ctx.clock.now();

  let event: EventPayload;
  let json: Buffer;
  try {
    json = await decodeLegacyStoreBody(body, EVENT_MAX_BYTES, lease);
    event = readEventPayload(json);
  } catch (e) {
    deps.outcomes.add(project.id, now, outcomeFromError(e) ?? invalidFromError(e), 'error');
    throw e;
  }
  const kind = classifyStoreEvent(event.payload);
  if (kind.keep) {
    const items = [{ category: kind.category, quantity: 1 }];
    await admitEvent(deps, project, { eventId: event.eventId, payload: json, receivedAt: now, clientIp: req.clientIp }, json.length, items, event.payload);
  }
  deps.outcomes.add(project.id, now, kind.outcome, kind.category);
  return { id: event.eventId };
}
