/**
 * The last statement of a writer batch: add the counts and state changes to the issues, insert the notifications'
 * outbox rows (core/outbox.ts), add the outcome counts, and delete the batch's ingest_inbox rows, in one round trip
 * (each part only when it has rows). It runs last so
 * that the row locks every batch contends for (the issues, the hour's `accepted` outcome row) are held from here to
 * the commit only. Counters are only ever incremented (`count = count + n`), so no concurrent batch's count is lost.
 */
import type { Queryable } from '../../core/db/db.ts';
import { emitEventsSql, type OutboxRow } from '../../core/outbox.ts';
import type { OutcomeRow } from '../outcome-counter.ts';
import type { IssueUpdate } from './batch-statements.ts';
import { jsonParam, recordsetOf } from './json-param.ts';

export interface BatchEnd {
  updates: readonly IssueUpdate[];
  /** Outbox rows, inserted in this order (their ids follow it). */
  outbox?: readonly OutboxRow[];
  outcomes: readonly OutcomeRow[];
  inboxIds: readonly string[];
}

const UPDATE_ISSUES = (rows: string, count: string, now: string) => `UPDATE issues i SET
       count = i.count + x.added,
       people = i.people + x.people_added,
       first_seen = LEAST(i.first_seen, x.first_seen),
       last_seen = GREATEST(i.last_seen, x.last_seen),
       first_release = COALESCE(i.first_release, x.first_release),
       last_release = COALESCE(x.last_release, i.last_release),
       last_event_id = x.last_event_id,
       state = x.state,
       regressed = x.regressed,
       resolved_at = CASE WHEN x.state_changed THEN NULL ELSE i.resolved_at END,
       resolved_in_release = CASE WHEN x.state_changed THEN NULL ELSE i.resolved_in_release END,
       resolved_release_id = CASE WHEN x.state_changed THEN NULL ELSE i.resolved_release_id END,
       ignore_until_count = CASE WHEN x.state_changed THEN NULL ELSE i.ignore_until_count END,
       ignored_at_count = CASE WHEN x.state_changed THEN NULL ELSE i.ignored_at_count END,
       spike_notified_hour = COALESCE(x.spike_hour, i.spike_notified_hour),
       updated_at = ${now}
     FROM ${recordsetOf(rows, `id text, added bigint, people_added bigint, first_seen timestamptz,
       last_seen timestamptz, first_release text, last_release text, last_event_id text, state text, regressed boolean,
       state_changed boolean, spike_hour timestamptz`, count)} AS x
     WHERE i.id = x.id`;

// An hour's counts expire with the stats' horizon (HOURLY_KEPT_DAYS, 90 days), so the upsert key may include it.
const ADD_OUTCOMES = (rows: string) => `INSERT INTO ingest_outcomes (project_id, hour, outcome, reason, category, quantity, expires_at)
     SELECT x.project_id, x.hour, x.outcome, x.reason, x.category, x.quantity, x.hour + make_interval(secs => 90 * 86400)
     FROM jsonb_to_recordset(${rows}::jsonb) AS x(project_id bigint, hour timestamptz, outcome text, reason text, category text, quantity bigint)
     WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = x.project_id)
     ORDER BY x.project_id, x.hour, x.outcome, x.reason, x.category
     ON CONFLICT (project_id, hour, outcome, reason, category, expires_at) DO UPDATE SET quantity = ingest_outcomes.quantity + EXCLUDED.quantity`;

const DELETE_INBOX = (ids: string) => `DELETE FROM ingest_inbox WHERE id = ANY(${ids}::uuid[])`;

export async function finishBatch(q: Queryable, end: BatchEnd, now: Date): Promise<void> {
  const parts: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (end.updates.length > 0) parts.push(UPDATE_ISSUES(param(jsonParam(end.updates)), param(end.updates.length), param(now)));
  if (end.outbox !== undefined && end.outbox.length > 0) parts.push(emitEventsSql(param(jsonParam(end.outbox))));
  if (end.outcomes.length > 0) parts.push(ADD_OUTCOMES(param(jsonParam(end.outcomes.map(outcomeRow)))));
  if (end.inboxIds.length > 0) parts.push(DELETE_INBOX(param(end.inboxIds)));
  if (parts.length === 0) return;
  const sql = parts.length === 1 ? parts[0] : `WITH ${parts.map((p, i) => `s${i} AS (${p})`).join(', ')} SELECT 1`;
  await q.query(sql, params);
}

function outcomeRow(r: OutcomeRow) {
  return { project_id: r.projectId, hour: new Date(r.hour).toISOString(), outcome: r.outcome, reason: r.reason, category: r.category, quantity: r.quantity };
}
