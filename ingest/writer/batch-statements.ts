/**
 * The first statements of one writer batch (then count-and-lock-issues.ts and finish-batch.ts), each a single
 * multi-row statement over a JSON parameter. Rows are sorted by their conflict key so that concurrent batches
 * (other writers, other nodes) take row locks in one order.
 */
import type { EventDocuments } from '../../core/config.ts';
import type { Queryable } from '../../core/db/db.ts';
import { jsonParam, recordsetOf } from './json-param.ts';
import type { EventRowsText } from './prepare-batch.ts';

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

export interface EnsuredIssue extends IssueKey {
  /** Created by this statement. */
  created: boolean;
}

/**
 * Creates the issues that do not exist yet and returns the ids of all of them, in one statement. An issue that
 * another transaction created after this statement's snapshot is neither inserted (the conflict) nor seen by its
 * read: its key is read again by a second statement, which only that race costs.
 */
export async function ensureIssues(q: Queryable, rows: NewIssueRow[], now: Date): Promise<EnsuredIssue[]> {
  const r = await q.query<EnsuredIssue>(
    `WITH x AS (
       SELECT * FROM ${recordsetOf('$1', `id text, project_id bigint, fingerprint text, title text, culprit text,
         level text, type text, first_seen timestamptz`, '$3')} AS x
     ), created AS (
       INSERT INTO issues (id, project_id, fingerprint, title, culprit, level, type, first_seen, last_seen, created_at, updated_at)
       SELECT x.id, x.project_id, x.fingerprint, x.title, x.culprit, x.level, x.type, x.first_seen, x.first_seen, $2, $2
       FROM x ORDER BY x.project_id, x.fingerprint
       ON CONFLICT (project_id, fingerprint) DO NOTHING
       RETURNING id, project_id, fingerprint
     )
     SELECT id, project_id, fingerprint, true AS created FROM created
     UNION ALL
     SELECT i.id, i.project_id, i.fingerprint, false AS created FROM issues i JOIN x ON i.project_id = x.project_id AND i.fingerprint = x.fingerprint`,
    [jsonParam(rows), now, rows.length],
  );
  const found = new Set(r.rows.map((k) => `${k.project_id}:${k.fingerprint}`));
  const missing = rows.filter((k) => !found.has(`${k.project_id}:${k.fingerprint}`));
  if (missing.length === 0) return r.rows;
  return [...r.rows, ...(await issueIds(q, missing)).map((k) => ({ ...k, created: false }))];
}

/** The ids of the issues with these (project, fingerprint) keys. */
async function issueIds(q: Queryable, keys: Array<{ project_id: number; fingerprint: string }>): Promise<IssueKey[]> {
  const r = await q.query<IssueKey>(
    `SELECT i.id, i.project_id, i.fingerprint FROM issues i
     JOIN ${recordsetOf('$1', 'project_id bigint, fingerprint text', '$2')} AS x
       ON i.project_id = x.project_id AND i.fingerprint = x.fingerprint`,
    [jsonParam(keys), keys.length],
  );
  return r.rows;
}

/**
 * Inserts the events (rows from prepare-batch.ts, each naming its issue by fingerprint: the issues exist by now);
 * a repeated (project, event_id) is skipped. Returns the keys actually inserted. `rows` is JSON text, or its UTF-8
 * bytes (pg sends a Buffer parameter in binary format, which for text is the bytes themselves).
 *
 * Each event expires at its arrival plus its project's retention (the events table is partitioned by that day,
 * core/db/partitions.ts). A partitioned table holds no unique key on (project, event_id), so an id is claimed in
 * event_ids first and only the events whose claim succeeded are inserted; while the table from before partitioning
 * is still attached (events_legacy, bound in partition_legacy), its ids are checked too, through its primary key.
 *
 * The document goes to `data` (jsonb) or `doc` (json, its text checked once: about half the database's work per
 * event), as SVC_EVENT_DOCUMENTS says (docs/errors.md#event-documents).
 */
export async function insertEvents(q: Queryable, rows: EventRowsText, count: number, documents: EventDocuments = 'jsonb'): Promise<Set<string>> {
  const column = documents === 'json' ? 'doc' : 'data';
  const r = await q.query<{ project_id: number; event_id: string }>(
    // The columns and the documents side by side (ROWS FROM pairs the nth element of each); each document is
    // parsed once, into the value stored (prepare-batch.ts says why they travel apart).
    `WITH x AS MATERIALIZED (
       SELECT x.project_id, x.event_id, i.id AS issue_id, x.timestamp, x.received_at, x.level, x.release, x.environment, x.title, x.document::${documents} AS ${column},
         x.received_at + make_interval(secs => p.retention_days * 86400) AS expires_at
       FROM (SELECT * FROM ROWS FROM (
           jsonb_to_recordset($1::text::jsonb) AS (project_id bigint, event_id text, fingerprint text, timestamp timestamptz,
             received_at timestamptz, level text, release text, environment text, title text),
           string_to_table($3::text, E'\\x1e')
         ) AS r (project_id, event_id, fingerprint, timestamp, received_at, level, release, environment, title, document)
         LIMIT $2::int) AS x
       JOIN issues i ON i.project_id = x.project_id AND i.fingerprint = x.fingerprint
       JOIN projects p ON p.id = x.project_id
     ), claimed AS (
       INSERT INTO event_ids (project_id, event_id, expires_at)
       SELECT x.project_id, x.event_id, x.expires_at FROM x
       WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.project_id = x.project_id AND e.event_id = x.event_id
         AND e.expires_at < (SELECT until FROM partition_legacy WHERE table_name = 'events'))
       ORDER BY x.project_id, x.event_id
       ON CONFLICT DO NOTHING
       RETURNING project_id, event_id
     )
     INSERT INTO events (project_id, event_id, issue_id, timestamp, received_at, level, release, environment, title, ${column}, expires_at)
     SELECT x.project_id, x.event_id, x.issue_id, x.timestamp, x.received_at, x.level, x.release, x.environment, x.title, x.${column}, x.expires_at
     FROM x JOIN claimed c ON c.project_id = x.project_id AND c.event_id = x.event_id
     RETURNING project_id, event_id`,
    [rows.columns, count, rows.documents],
    // Prepared once per connection: planning it over every partition of events cost about 1.7 ms per batch.
    { name: `svc_insert_events_${documents}` },
  );
  return new Set(r.rows.map((e) => eventKey(e.project_id, e.event_id)));
}

export function eventKey(projectId: number, eventId: string): string {
  return `${projectId}:${eventId}`;
}

export interface ReleaseSeen {
  project_id: number;
  version: string;
  first_seen: string;
  last_seen: string;
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

/** Removes issues this batch created whose every event turned out to be a repeat of a stored one. */
export async function deleteEmptyIssues(q: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0) await q.query('DELETE FROM issues WHERE id = ANY($1::text[]) AND count = 0', [ids]);
}
