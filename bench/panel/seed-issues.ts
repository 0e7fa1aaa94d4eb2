/**
 * Issues and events for the panel bench, written by Postgres itself (INSERT … SELECT over generate_series): one
 * project with `issues` issues of varied titles, levels and states, `events` events spread over them (their last
 * 14 days) with small realistic documents in 20 releases, the issues' hourly counts, the releases (each issue first
 * seen in the release of its events when the issue count is a multiple of 20) and the ingest's hourly outcomes (accepted as stored, plus a few filtered and rate-limited).
 * Counts and first/last seen agree with the events, as ingest keeps them.
 */
import type { Queryable } from '../../core/db/db.ts';

export async function seedIssues(q: Queryable, projectId: number, issues: number, events: number, now: number): Promise<void> {
  const from = now - 14 * 86_400_000;
  await q.query(
    `INSERT INTO issues (id, project_id, fingerprint, title, culprit, level, type, state, first_seen, last_seen, created_at, updated_at, count, first_release, last_release)
     SELECT substr(md5('issue' || i), 1, 16), $1, md5(i::text), 'TypeError: value ' || i || ' of cart is undefined', 'app/cart.js in total',
            (ARRAY['error', 'warning', 'fatal', 'info'])[1 + i % 4], 'error', CASE WHEN i % 10 = 0 THEN 'resolved' ELSE 'unresolved' END,
            to_timestamp($2::float8 / 1000), to_timestamp($2::float8 / 1000), now(), now(), 0, 'shop@1.' || ((i - 1) % 20), 'shop@1.' || ((i - 1) % 20)
       FROM generate_series(1, $3::int) AS i`,
    [projectId, from, issues],
  );
  await q.query(
    `INSERT INTO events (project_id, event_id, issue_id, timestamp, received_at, level, release, environment, title, data)
     SELECT $1, md5('e' || e.n), substr(md5('issue' || (1 + e.n % $2)), 1, 16), e.at, e.at, 'error', 'shop@1.' || (e.n % 20), 'production',
            'TypeError: value of cart is undefined',
            jsonb_build_object('exception', jsonb_build_object('values', jsonb_build_array(jsonb_build_object('type', 'TypeError', 'value', 'cart is undefined',
              'stacktrace', jsonb_build_object('frames', jsonb_build_array(
                jsonb_build_object('filename', 'app/cart.js', 'function', 'total', 'lineno', 42, 'in_app', true),
                jsonb_build_object('filename', 'node_modules/express/router.js', 'function', 'handle', 'lineno', 7, 'in_app', false)))))),
              'tags', jsonb_build_object('region', 'eu'), 'user', jsonb_build_object('id', 'u' || (e.n % 500)))
       FROM (SELECT n, to_timestamp(($3::float8 + random() * ($4::float8 - $3::float8)) / 1000) AS at FROM generate_series(1, $5::int) AS n) e`,
    [projectId, issues, from, now, events],
  );
  await q.query(
    `INSERT INTO issue_hourly (issue_id, hour, count)
     SELECT issue_id, date_trunc('hour', timestamp), count(*) FROM events WHERE project_id = $1 GROUP BY 1, 2`,
    [projectId],
  );
  await q.query(
    `UPDATE issues i SET count = s.n, first_seen = s.first, last_seen = s.last
       FROM (SELECT issue_id, count(*) AS n, min(timestamp) AS first, max(timestamp) AS last FROM events WHERE project_id = $1 GROUP BY 1) s
      WHERE i.id = s.issue_id`,
    [projectId],
  );
  await q.query(
    `INSERT INTO releases (project_id, version, first_seen, last_seen)
     SELECT $1, release, min(timestamp), max(timestamp) FROM events WHERE project_id = $1 GROUP BY release`,
    [projectId],
  );
  await q.query(
    `INSERT INTO ingest_outcomes (project_id, hour, outcome, reason, category, quantity)
     SELECT $1, h.hour, o.outcome, o.reason, 'error', greatest(1, (sum(h.count) * o.share)::bigint)
       FROM issue_hourly h JOIN issues i ON i.id = h.issue_id AND i.project_id = $1,
            (VALUES ('accepted', '', 1.0), ('filtered', 'release', 0.05), ('rate_limited', 'project_quota', 0.02)) AS o(outcome, reason, share)
      GROUP BY h.hour, o.outcome, o.reason, o.share`,
    [projectId],
  );
  await q.exec('ANALYZE issues; ANALYZE events; ANALYZE issue_hourly; ANALYZE releases; ANALYZE ingest_outcomes');
}
