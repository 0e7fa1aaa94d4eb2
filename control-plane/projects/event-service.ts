/**
 * Stored events: the events of an issue (newest first) and one event as stored, i.e. normalised and scrubbed by the
 * ingest writer (`data`). Events older than the project's retention are deleted (errors-retention.ts); their issue
 * and its counts stay.
 *
 * Event ids are unique per project (SDKs make them). GET /api/v1/events/{event_id} looks the id up in every project
 * the caller can read, through the (project_id, event_id) key; `project` narrows it when two projects share one.
 */
import type { AppContext } from '../../core/context.ts';
import { readableTeams, requireTeam, type Principal } from '../../core/auth/principal.ts';
import { rfc3339 } from '../../core/clock.ts';
import { svcError } from '../../core/errors.ts';
import { listEnvelope, type ListParams } from '../../core/http/list.ts';
import { loadIssue } from './issue-service.ts';

interface EventRow {
  project_id: number;
  event_id: string;
  issue_id: string;
  team_id: string;
  timestamp: Date;
  received_at: Date;
  level: string;
  release: string | null;
  environment: string | null;
  title: string;
  data?: Record<string, unknown>;
}

const SUMMARY = 'e.project_id, e.event_id, e.issue_id, p.team_id, e.timestamp, e.received_at, e.level, e.release, e.environment, e.title';

function eventView(e: EventRow, publicUrl: string) {
  const view: Record<string, unknown> = {
    event_id: e.event_id,
    project: e.project_id,
    issue: e.issue_id,
    team: e.team_id,
    title: e.title,
    level: e.level,
    release: e.release,
    environment: e.environment,
    timestamp: rfc3339(e.timestamp),
    received_at: rfc3339(e.received_at),
    url: `${publicUrl}/api/v1/events/${e.event_id}?project=${e.project_id}`,
    issue_url: `${publicUrl}/api/v1/issues/${e.issue_id}`,
  };
  if (e.data !== undefined) view.data = e.data;
  return view;
}

/** 32 lowercase hex; the dashed UUID form is accepted and normalised, as the ingest does. */
export function normalizeEventId(raw: string): string {
  const id = raw.replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(id) || (raw.includes('-') && !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(raw))) {
    throw svcError('invalid_event_id', `"${raw.slice(0, 40)}" is not an event id: use 32 hexadecimal characters or a UUID.`);
  }
  return id;
}

export async function listIssueEvents(ctx: AppContext, p: Principal, issueId: string, page: ListParams) {
  const issue = await loadIssue(ctx, p, issueId);
  const params: unknown[] = [issue.id, page.limit + 1];
  const after = page.after ? `AND (e.received_at, e.event_id) < ($${params.push(String(page.after[0]))}::timestamptz, $${params.push(String(page.after[1]))})` : '';
  const r = await ctx.db.query<EventRow>(
    `SELECT ${SUMMARY} FROM events e JOIN projects p ON p.id = e.project_id
     WHERE e.issue_id = $1 ${after} ORDER BY e.received_at DESC, e.event_id DESC LIMIT $2`,
    params,
  );
  return listEnvelope(r.rows, page.limit, (e) => [e.received_at.toISOString(), e.event_id], (e) => eventView(e, ctx.config.publicUrl));
}

export async function getEvent(ctx: AppContext, p: Principal, rawId: string, projectId?: number) {
  const id = normalizeEventId(rawId);
  const params: unknown[] = [id];
  const where: string[] = [];
  const visible = readableTeams(p);
  if (visible) where.push(`p.team_id = ANY($${params.push(visible)})`);
  if (projectId !== undefined) where.push(`p.id = $${params.push(projectId)}`);
  // The document is in `doc` or `data`, as the node that stored it was configured (SVC_EVENT_DOCUMENTS).
  const r = await ctx.db.query<EventRow>(
    `SELECT ${SUMMARY}, COALESCE(e.doc, e.data::json) AS data FROM projects p JOIN events e ON e.project_id = p.id AND e.event_id = $1
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY e.received_at DESC LIMIT 1`,
    params,
  );
  const row = r.rows[0];
  if (!row) throw svcError('not_found', `The event ${id} was not found (it may be older than the project's retention).`);
  requireTeam(p, row.team_id, 'read');
  return eventView(row, ctx.config.publicUrl);
}
