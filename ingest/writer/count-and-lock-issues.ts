/**
 * One statement of a writer batch, after its events are inserted: record the people (insert-if-absent per issue
 * and person hash), create or move the releases seen, add the hourly counts, and lock the issues being counted
 * (FOR NO KEY UPDATE, in id order) reading what their state changes need. One round trip instead of four; each
 * part keeps its own rows sorted by its conflict key, so concurrent batches take row locks in one order.
 *
 * FOR NO KEY UPDATE, the lock the UPDATE takes anyway: it does not conflict with the KEY SHARE locks that the foreign
 * keys of concurrently inserted events, people and hourly rows hold on the same issue (FOR UPDATE would, and two
 * batches would deadlock). A row locked after waiting is read as the other batch committed it.
 */
import type { Queryable } from '../../core/db/db.ts';
import { releaseKey, type HourlyCount, type LockedIssue, type ReleaseSeen } from './batch-statements.ts';
import { jsonParam } from './json-param.ts';

export interface IssueCounts {
  /** New people per issue id. */
  people: Map<string, number>;
  /** Release ids by `project:version`. */
  releaseIds: Map<string, number>;
  /** Each hourly row's total after the addition. */
  hourly: Array<{ issue_id: string; hour: Date; count: number }>;
  locked: LockedIssue[];
}

const SQL = `WITH p AS (
    INSERT INTO issue_people (issue_id, person_hash)
    SELECT x.issue_id, x.person_hash FROM jsonb_to_recordset($1::jsonb) AS x(issue_id text, person_hash text)
    ORDER BY x.issue_id, x.person_hash
    ON CONFLICT DO NOTHING
    RETURNING issue_id
  ), r AS (
    INSERT INTO releases (project_id, version, created_at, first_seen, last_seen)
    SELECT x.project_id, x.version, $5, x.first_seen, x.last_seen
    FROM jsonb_to_recordset($2::jsonb) AS x(project_id bigint, version text, first_seen timestamptz, last_seen timestamptz)
    ORDER BY x.project_id, x.version
    ON CONFLICT (project_id, version) DO UPDATE SET
      first_seen = LEAST(COALESCE(releases.first_seen, EXCLUDED.first_seen), EXCLUDED.first_seen),
      last_seen = GREATEST(COALESCE(releases.last_seen, EXCLUDED.last_seen), EXCLUDED.last_seen)
    RETURNING id, project_id, version
  ), h AS (
    INSERT INTO issue_hourly (issue_id, hour, count)
    SELECT x.issue_id, x.hour, x.count FROM jsonb_to_recordset($3::jsonb) AS x(issue_id text, hour timestamptz, count bigint)
    ORDER BY x.issue_id, x.hour
    ON CONFLICT (issue_id, hour) DO UPDATE SET count = issue_hourly.count + EXCLUDED.count
    RETURNING issue_id, hour, count
  ), l AS (
    SELECT id, project_id, title, culprit, level, state, regressed, count, people, resolved_release_id, ignore_until_count,
      ignored_at_count, spike_notified_hour
    FROM issues WHERE id = ANY($4::text[]) ORDER BY id FOR NO KEY UPDATE
  )
  SELECT
    (SELECT coalesce(json_agg(p), '[]') FROM p) AS people,
    (SELECT coalesce(json_agg(r), '[]') FROM r) AS releases,
    (SELECT coalesce(json_agg(h), '[]') FROM h) AS hourly,
    (SELECT coalesce(json_agg(l), '[]') FROM l) AS locked`;

interface Answer {
  people: Array<{ issue_id: string }>;
  releases: Array<{ id: number; project_id: number; version: string }>;
  hourly: Array<{ issue_id: string; hour: string; count: number }>;
  locked: Array<Omit<LockedIssue, 'spike_notified_hour'> & { spike_notified_hour: string | null }>;
}

export async function countAndLockIssues(
  q: Queryable,
  rows: { people: Array<{ issue_id: string; person_hash: string }>; releases: ReleaseSeen[]; hourly: HourlyCount[]; issueIds: string[] },
  now: Date,
): Promise<IssueCounts> {
  const res = await q.query<Answer>(SQL, [jsonParam(rows.people), jsonParam(rows.releases), jsonParam(rows.hourly), [...rows.issueIds].sort(), now]);
  const a = parsed(res.rows[0]);
  const people = new Map<string, number>();
  for (const row of a.people) people.set(row.issue_id, (people.get(row.issue_id) ?? 0) + 1);
  return {
    people,
    releaseIds: new Map(a.releases.map((row) => [releaseKey(row.project_id, row.version), row.id])),
    hourly: a.hourly.map((h) => ({ issue_id: h.issue_id, hour: new Date(h.hour), count: Number(h.count) })),
    locked: a.locked.map((i) => ({ ...i, spike_notified_hour: i.spike_notified_hour === null ? null : new Date(i.spike_notified_hour) })),
  };
}

/** pg parses json columns; the embedded database may hand them over as text. */
function parsed(row: Answer | Record<keyof Answer, string>): Answer {
  const out = {} as Record<keyof Answer, unknown>;
  for (const k of ['people', 'releases', 'hourly', 'locked'] as const) out[k] = typeof row[k] === 'string' ? JSON.parse(row[k]) : row[k];
  return out as unknown as Answer;
}
