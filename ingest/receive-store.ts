/**
 * `POST /api/{project}/store/`: the legacy endpoint, one event JSON per request. The body may be compressed with
 * a Content-Encoding, or (as old SDKs send it) base64 of zlib-compressed JSON with no header at all. The event is
 * kept when its `type` is an error or default event (or absent); a transaction posted here is accepted and
 * dropped like a transaction item.
 */
import { extractClientKey } from './lib/client-auth.ts';
import { decodeLegacyStoreBody, decompressBody } from './lib/decompress-body.ts';
import { EVENT_MAX_BYTES } from './lib/ingest-limits.ts';
import { classifyStoreEvent, invalidFromError } from './lib/item-outcome.ts';
import { admitEvent } from './admit-event.ts';
import { authorizeClient, parseProjectId } from './client-authorizer.ts';
import type { IngestDeps, IngestReply, IngestRequest } from './ingest-deps.ts';
import { readEventPayload, type EventPayload } from './read-event-payload.ts';
import { headerValue } from './receive-envelope.ts';

export async function receiveStore(deps: IngestDeps, req: IngestRequest): Promise<IngestReply> {
  const projectId = parseProjectId(req.projectParam);
  const key = extractClientKey({ headers: req.headers, query: req.query });
  const project = await authorizeClient(deps.lookup, projectId, key);
  const now = deps.ctx.clock.now();

  let event: EventPayload;
  let json: Buffer;
  try {
    const inflated = await decompressBody(req.body, headerValue(req.headers['content-encoding']), EVENT_MAX_BYTES, 'event_too_large');
    json = await decodeLegacyStoreBody(inflated, EVENT_MAX_BYTES);
    event = readEventPayload(json);
  } catch (e) {
    deps.outcomes.add(project.id, now, invalidFromError(e), 'error');
    throw e;
  }
  const kind = classifyStoreEvent(event.payload);
  if (kind.keep) {
    const items = [{ category: kind.category, quantity: 1 }];
    await admitEvent(deps, project, { eventId: event.eventId, payload: json, receivedAt: now, clientIp: req.clientIp }, json.length, items);
  }
  deps.outcomes.add(project.id, now, kind.outcome, kind.category);
  return { id: event.eventId };
}
