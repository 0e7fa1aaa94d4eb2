/**
 * A small batch in a project with thousands of issues looks its issues up by index: no statement of the batch scans
 * the issues table (the planner, assuming 100 rows from a JSON parameter, used to, until some 20,000 issues).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../../core/db/migrate.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { createTestDatabase, REAL_PG, type TestDatabase } from '../../test/support/test-db.ts';
import { ensureIssues, insertEvents } from './batch-statements.ts';
import { eventRowsText } from './prepare-batch.ts';
import { finishBatch } from './finish-batch.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, MIGRATIONS_DIR);
  await t.db.exec(`
    INSERT INTO teams (id, name) VALUES ('team_plans', 'plans');
    INSERT INTO projects (id, team_id, name, slug) VALUES (1, 'team_plans', 'p', 'p');
    INSERT INTO issues (id, project_id, fingerprint, title, first_seen, last_seen)
      SELECT 'iss_' || g, 1, md5(g::text), 'Boom', now(), now() FROM generate_series(1, 8000) AS g;
    ANALYZE issues;`);
}, 60_000);
afterAll(async () => t?.drop());

it.runIf(REAL_PG)('does not scan the issues table for a batch of three events', async () => {
  const now = new Date();
  const fingerprints = (await t.db.query<{ f: string }>("SELECT fingerprint AS f FROM issues WHERE id IN ('iss_1', 'iss_2', 'iss_3')")).rows.map((r) => r.f);
  const scans = await t.db.tx(async (q) => {
    const issues = await ensureIssues(q, fingerprints.map((fingerprint, i) => ({
      id: `new_${i}`, project_id: 1, fingerprint, title: 'Boom', culprit: '', level: 'error', type: 'error', first_seen: now.toISOString(),
    })), now);
    expect(issues.filter((x) => x.created).map((x) => x.fingerprint)).toEqual([]);
    const rows = eventRowsText(fingerprints.map((fingerprint, i) => ({
      project_id: 1, event_id: `${i}`.padStart(32, 'a'), fingerprint, timestamp: now.toISOString(), received_at: now.toISOString(),
      level: 'error', release: null, environment: null, title: 'Boom', data: {},
    })));
    expect((await insertEvents(q, rows, 3)).size).toBe(3);
    await finishBatch(q, {
      updates: issues.map((x) => ({
        id: x.id, added: 1, people_added: 0, first_seen: now.toISOString(), last_seen: now.toISOString(), first_release: null,
        last_release: null, last_event_id: 'x', state: 'unresolved', regressed: false, state_changed: false, spike_hour: null,
      })),
      outcomes: [],
      inboxIds: [],
    }, now);
    return (await q.query<{ seq_scan: number }>("SELECT seq_scan::int FROM pg_stat_xact_user_tables WHERE relname = 'issues'")).rows[0].seq_scan;
  });
  expect(scans).toBe(0);
});
