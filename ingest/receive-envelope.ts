/**
 * `POST /api/{project}/envelope/`: the fast path, and nothing more (STYLE.md a.9):
 *
 *   project id → client key (headers, query; else the envelope dsn of the first line) and project from cache →
 *   body read and decoded as a stream into at most 20 MB within the inflate budget → envelope framing → the event
 *   item read as a JSON object → rate limits → queue → `{"id": …}`.
 *
 * Every item of a request for a known project gets exactly one outcome: the event `accepted` (or the refusal's
 * `rate_limited`/`invalid` reason), other items `filtered` (sessions, transactions, replays, attachments, client
 * reports… are accepted on the wire and dropped). A client report's discarded counts are recorded as well. A bad
 * event refuses the request (4xx) and nothing is stored; a bad client report is counted and the rest goes on.
 */
import { svcError } from '../core/errors.ts';
import { extractClientKey } from './lib/client-auth.ts';
import type { BudgetLease } from './lib/inflate-budget.ts';
import { ENVELOPE_MAX_BYTES } from './lib/ingest-limits.ts';
import { classifyItems, invalid, invalidFromError, type ClassifiedItem } from './lib/item-outcome.ts';
import { parseClientReport } from './lib/parse-client-report.ts';
import { parseEnvelope, type Envelope } from './lib/parse-envelope.ts';
import { admitEvent } from './admit-event.ts';
import { authorizeClient, parseProjectId } from './client-authorizer.ts';
import type { IngestDeps, IngestReply, IngestRequest } from './ingest-deps.ts';
import { readEventPayload, type EventPayload } from './read-event-payload.ts';
import { readAuthorizedBody, withBodyLease } from './read-request-body.ts';

export async function receiveEnvelope(deps: IngestDeps, req: IngestRequest): Promise<IngestReply> {
  const projectId = parseProjectId(req.projectParam);
  return withBodyLease(deps, (lease) => receive(deps, req, projectId, lease));
}

async function receive(deps: IngestDeps, req: IngestRequest, projectId: number, lease: BudgetLease): Promise<IngestReply> {
  const limits = { maxBytes: ENVELOPE_MAX_BYTES, tooLarge: 'envelope_too_large', keyInBody: true } as const;
  const { project, body, headerKey } = await readAuthorizedBody(deps, req, projectId, lease, limits);
  const now = deps.ctx.clock.now();

  let envelope: Envelope;
  try {
    envelope = parseEnvelope(body);
  } catch (e) {
    deps.outcomes.add(project.id, now, invalidFromError(e), 'error');
    throw e;
  }
  if (headerKey && envelope.headers.dsn !== undefined) {
    // The key was checked before the body was read; a dsn beside it must agree (same key, same project).
    await authorizeClient(deps.lookup, projectId, extractClientKey({ headers: req.headers, query: req.query, envelopeDsn: envelope.headers.dsn }));
  }
  const items = classifyItems(envelope.items);
  const eventItem = items.find((c) => c.keep);
  if (items.some((c) => c.type === 'event' && c.outcome.outcome === 'invalid')) {
    countAll(deps, project.id, now, items);
    throw svcError('invalid_event', 'The event item is empty.');
  }

  let event: EventPayload | undefined;
  if (eventItem) {
    try {
      event = readEventPayload(eventItem.item.payload, envelope.headers.event_id);
    } catch (e) {
      eventItem.outcome = invalidFromError(e);
      countAll(deps, project.id, now, items);
      throw e;
    }
  }
  for (const c of items) if (c.type === 'client_report') recordClientReport(deps, project.id, now, c);

  if (event && eventItem) {
    // A copy of the event's bytes: the rest of the (possibly large) body is not kept alive by the queue.
    const queued = { eventId: event.eventId, payload: Buffer.from(eventItem.item.payload), receivedAt: now, clientIp: req.clientIp };
    const sentAt = envelope.headers.sent_at;
    await admitEvent(deps, project, sentAt !== undefined ? { ...queued, sentAt } : queued, eventItem.item.payload.length, items, event.payload);
  }
  countAll(deps, project.id, now, items);
  return event ? { id: event.eventId } : {};
}

function countAll(deps: IngestDeps, projectId: number, now: number, items: readonly ClassifiedItem[]): void {
  for (const c of items) deps.outcomes.add(projectId, now, c.outcome, c.category, c.quantity);
}

/** The SDK's own discard counts; an unreadable report is counted as invalid and otherwise ignored. */
function recordClientReport(deps: IngestDeps, projectId: number, now: number, c: ClassifiedItem): void {
  const report = parseClientReport(c.item.payload);
  if (!report) {
    c.outcome = invalid('invalid_client_report');
    return;
  }
  for (const d of report.discarded) deps.outcomes.addClientDiscard(projectId, now, d.reason, d.category, d.quantity);
}
