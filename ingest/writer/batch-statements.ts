/**
 * The statements of one writer batch, each a single multi-row statement over a JSON parameter. Rows are sorted
 * by their conflict key so that concurrent batches (other writers, other nodes) take row locks in one order;
 * counters are only ever incremented (`count = count + n`) so that no concurrent batch's count is lost.
 */
import type { Queryable } from '../../core/db/db.ts';
import { jsonParam } from './json-param.ts';

export interface NewIssueRow {
  id: string;
  project_id: number;
  fingerprint: string;
  title: string;
  culprit: string;
  level: string;
  type: string;
  first_seen: string;
}

export interface IssueKey {
  id: string;
  project_id: number;
  fingerprint: string;
}

/** Creates the issues that do not exist yet; returns the ones this statement created. */
export async function insertMissingIssues(q: Queryable, rows: NewIssueRow[], now: Date): Promise<IssueKey[]> {
  const r = await q.query<IssueKey>(
    `INSERT INTO issues (id, project_id, fingerprint, title, culprit, level, type, first_seen, last_seen, created_at, updated_at)
     SELECT x.id, x.project_id, x.fingerprint, x.title, x.culprit, x.level, x.type, x.first_seen, x.first_seen, $2, $2
     FROM jsonb_to_recordset($1::jsonb) AS x(id text, project_id bigint, fingerprint text, title text, culprit text,
       level text, type text, first_seen timestamptz)
     ORDER BY x.project_id, x.fingerprint
     ON CONFLICT (project_id, fingerprint) DO NOTHING
     RETURNING id, project_id, fingerprint`,
    [jsonParam(rows), now],
  );
  return r.rows;
}

/** The ids of the issues with these (project, fingerprint) keys. */
export async function issueIds(q: Queryable, keys: Array<{ project_id: number; fingerprint: string }>): Promise<IssueKey[]> {
  const r = await q.query<IssueKey>(
    `SELECT i.id, i.project_id, i.fingerprint FROM issues i
     JOIN jsonb_to_recordset($1::jsonb) AS x(project_id bigint, fingerprint text)
       ON i.project_id = x.project_id AND i.fingerprint = x.fingerprint`,
    [jsonParam(keys)],
  );
  return r.rows;
}

/**
 * Inserts the events (rows from prepare-batch.ts, each naming its issue by fingerprint: the issues exist by now);
 * a repeated (project, event_id) is skipped. Returns the keys actually inserted. `rows` is JSON text, or its UTF-8
 * bytes (pg sends a Buffer parameter in binary format, which for text is the bytes themselves).
 */
export async function insertEvents(q: Queryable, rows: string | Buffer): Promise<Set<string>> {
  const r = await q.query<{ project_id: number; event_id: string }>(
    `INSERT INTO events (project_id, event_id, issue_id, timestamp, received_at, level, release, environment, title, data)
     SELECT x.project_id, x.event_id, i.id, x.timestamp, x.received_at, x.level, x.release, x.environment, x.title, x.data
     FROM jsonb_to_recordset($1::text::jsonb) AS x(project_id bigint, event_id text, fingerprint text, timestamp timestamptz,
       received_at timestamptz, level text, release text, environment text, title text, data jsonb)
     JOIN issues i ON i.project_id = x.project_id AND i.fingerprint = x.fingerprint
     ORDER BY x.project_id, x.event_id
     ON CONFLICT (project_id, event_id) DO NOTHING
     RETURNING project_id, event_id`,
    [rows],
  );
  return new Set(r.rows.map((e) => eventKey(e.project_id, e.event_id)));
}

export function eventKey(projectId: number, eventId: string): string {
  return `${projectId}:${eventId}`;
}

/** Records people per issue; returns how many were new per issue id. */
export async function insertPeople(q: Queryable, rows: Array<{ issue_id: string; person_hash: string }>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (rows.length === 0) return out;
  const r = await q.query<{ issue_id: string }>(
    `INSERT INTO issue_people (issue_id, person_hash)
     SELECT x.issue_id, x.person_hash FROM jsonb_to_recordset($1::jsonb) AS x(issue_id text, person_hash text)
     ORDER BY x.issue_id, x.person_hash
     ON CONFLICT DO NOTHING
     RETURNING issue_id`,
    [jsonParam(rows)],
  );
  for (const row of r.rows) out.set(row.issue_id, (out.get(row.issue_id) ?? 0) + 1);
  return out;
}

export interface ReleaseSeen {
  project_id: number;
  version: string;
  first_seen: string;
  last_seen: string;
}

/** Creates releases first seen in events and moves first/last seen; returns release ids by `project:version`. */
export async function upsertReleases(q: Queryable, rows: ReleaseSeen[], now: Date): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (rows.length === 0) return out;
  const r = await q.query<{ id: number; project_id: number; version: string }>(
    `INSERT INTO releases (project_id, version, created_at, first_seen, last_seen)
     SELECT x.project_id, x.version, $2, x.first_seen, x.last_seen
     FROM jsonb_to_recordset($1::jsonb) AS x(project_id bigint, version text, first_seen timestamptz, last_seen timestamptz)
     ORDER BY x.project_id, x.version
     ON CONFLICT (project_id, version) DO UPDATE SET
       first_seen = LEAST(COALESCE(releases.first_seen, EXCLUDED.first_seen), EXCLUDED.first_seen),
       last_seen = GREATEST(COALESCE(releases.last_seen, EXCLUDED.last_seen), EXCLUDED.last_seen)
     RETURNING id, project_id, version`,
    [jsonParam(rows), now],
  );
  for (const row of r.rows) out.set(releaseKey(row.project_id, row.version), row.id);
  return out;
}

export function releaseKey(projectId: number, version: string): string {
  return `${projectId}:${version}`;
}

export interface HourlyCount {
  issue_id: string;
  /** RFC 3339 start of the UTC hour. */
  hour: string;
  count: number;
}

/** Adds to the hourly counts; returns each row's total after the addition. */
export async function addHourly(q: Queryable, rows: HourlyCount[]): Promise<Array<{ issue_id: string; hour: Date; count: number }>> {
  const r = await q.query<{ issue_id: string; hour: Date; count: number }>(
    `INSERT INTO issue_hourly (issue_id, hour, count)
     SELECT x.issue_id, x.hour, x.count FROM jsonb_to_recordset($1::jsonb) AS x(issue_id text, hour timestamptz, count bigint)
     ORDER BY x.issue_id, x.hour
     ON CONFLICT (issue_id, hour) DO UPDATE SET count = issue_hourly.count + EXCLUDED.count
     RETURNING issue_id, hour, count`,
    [jsonParam(rows)],
  );
  return r.rows;
}

export interface LockedIssue {
  id: string;
  project_id: number;
  title: string;
  culprit: string;
  level: string;
  state: 'unresolved' | 'resolved' | 'resolved_in_next_release' | 'ignored';
  regressed: boolean;
  count: number;
  people: number;
  resolved_release_id: number | null;
  ignore_until_count: number | null;
  ignored_at_count: number | null;
  spike_notified_hour: Date | null;
}

/**
 * Locks the issues (in id order) and reads what the state changes need. FOR NO KEY UPDATE, the lock the UPDATE
 * takes anyway: it does not conflict with the KEY SHARE locks that the foreign keys of concurrently inserted
 * events, people and hourly rows hold on the same issue (FOR UPDATE would, and two batches would deadlock).
 */
export async function lockIssues(q: Queryable, ids: string[]): Promise<LockedIssue[]> {
  const r = await q.query<LockedIssue>(
    `SELECT id, project_id, title, culprit, level, state, regressed, count, people, resolved_release_id, ignore_until_count,
       ignored_at_count, spike_notified_hour
     FROM issues WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
    [[...ids].sort()],
  );
  return r.rows;
}

export interface IssueUpdate {
  id: string;
  added: number;
  people_added: number;
  first_seen: string;
  last_seen: string;
  first_release: string | null;
  last_release: string | null;
  last_event_id: string;
  state: string;
  regressed: boolean;
  /** The state changed: the resolve and ignore bookkeeping is cleared. */
  state_changed: boolean;
  spike_hour: string | null;
}

export async function updateIssues(q: Queryable, rows: IssueUpdate[], now: Date): Promise<void> {
  await q.query(
    `UPDATE issues i SET
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
       updated_at = $2
     FROM jsonb_to_recordset($1::jsonb) AS x(id text, added bigint, people_added bigint, first_seen timestamptz,
       last_seen timestamptz, first_release text, last_release text, last_event_id text, state text, regressed boolean,
       state_changed boolean, spike_hour timestamptz)
     WHERE i.id = x.id`,
    [jsonParam(rows), now],
  );
}

/** Removes issues this batch created whose every event turned out to be a repeat of a stored one. */
export async function deleteEmptyIssues(q: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0) await q.query('DELETE FROM issues WHERE id = ANY($1::text[]) AND count = 0', [ids]);
}
