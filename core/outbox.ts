/**
 * The outbox: every event a team may be told about (webhooks, GET /api/v1/notifications) is inserted here inside
 * the transaction that causes it, so an event exists exactly when its cause was committed. The dispatcher (one
 * node at a time) delivers rows to the team's webhooks.
 */
import type { Counters } from './counters/counters.ts';
import type { Queryable } from './db/db.ts';

/** Every event kind a webhook can subscribe to. Add a kind here when a feature starts emitting it. */
export const EVENT_KINDS = [
  'issue.new',
  'issue.regressed',
  'issue.spike',
  'key.budget_alert',
  'team.budget_alert',
  'account.state_changed',
  'link.stale',
  'webhook.test',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** Inserts an event for the team; call it with the transaction that commits the cause. */
export async function emitEvent(q: Queryable, teamId: string, kind: EventKind, payload: Record<string, unknown>): Promise<number> {
  const r = await q.query<{ id: number }>('INSERT INTO outbox (team_id, kind, payload) VALUES ($1, $2, $3) RETURNING id', [teamId, kind, JSON.stringify(payload)]);
  return r.rows[0].id;
}

/** An event as a row of a batch (emitEventsSql). */
export interface OutboxRow {
  team_id: string;
  kind: EventKind;
  payload: Record<string, unknown>;
}

/**
 * The same as emitEvent for many events in one statement, to run inside the causing transaction (for a writer that
 * ends its batch with one multi-part statement): `rows` is the placeholder of OutboxRow[] as JSON; ids follow the order.
 */
export function emitEventsSql(rows: string): string {
  return `INSERT INTO outbox (team_id, kind, payload)
     SELECT x.team_id, x.kind, x.payload
     FROM ROWS FROM (jsonb_to_recordset(${rows}::jsonb) AS (team_id text, kind text, payload jsonb)) WITH ORDINALITY AS x(team_id, kind, payload, n)
     ORDER BY x.n`;
}

/** Pub/sub channel on which emitters announce committed rows, so the dispatcher wakes before its next poll. */
export const OUTBOX_CHANNEL = 'outbox.new';

/** Call after the transaction that emitted events has committed; the dispatcher polls anyway, this only saves latency. */
export async function announceEvents(counters: Pick<Counters, 'publish'>): Promise<void> {
  await counters.publish(OUTBOX_CHANNEL, '1').catch(() => {});
}
