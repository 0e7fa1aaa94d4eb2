/**
 * A node killed while Postgres is down, and restarted before Postgres is back: it waits for the database instead of
 * exiting, then replays its journal, so every event acknowledged from the journal is stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventEnvelope, randomEventId, sentryAuth } from '../ingest/support/ingest-helpers.ts';
import { nodeProject } from '../support/node-api.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';

describe('a node restarted while Postgres is down', () => {
  let pgs: ThrowawayPostgres | undefined;
  const nodes: NodeProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-down-'));

  afterAll(async () => {
    for (const n of nodes) await n.stop('SIGKILL').catch(() => {});
    await pgs?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('waits for the database, then stores every event its journal acknowledged', async () => {
    pgs = await startThrowawayPostgres();
    const env = { DATABASE_URL: pgs.url, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, SVC_DATA_DIR: dataDir };
    const first = await spawnNode('all', env);
    nodes.push(first);
    const project = await nodeProject(first.url, 'restart-down', 1_000_000);
    const acked = new Set<string>();
    const send = async () => {
      const id = randomEventId();
      const res = await fetch(`${first.url}/api/${project.id}/envelope/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(project.key) },
        body: new Uint8Array(eventEnvelope({ event_id: id, message: 'journaled then killed' }, { event_id: id })),
      });
      if (res.status === 200) acked.add(id);
      await res.arrayBuffer();
    };
    await send(); // warms the key and project caches: the fast path then needs no database
    await pgs.stop('immediate');
    for (let i = 0; i < 30; i++) await send();
    expect(acked.size).toBeGreaterThan(20);
    await first.stop('SIGKILL');

    // Postgres comes back a few seconds after the node was started again.
    const restart = setTimeout(() => void pgs?.start(), 4000);
    try {
      const second = await spawnNode('all', env);
      nodes.push(second);
      expect(second.output()).toContain('waiting for it before starting');
    } finally {
      clearTimeout(restart);
    }
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    try {
      await expect
        .poll(
          async () => {
            const rows = (await db.query<{ id: string }>('SELECT event_id AS id FROM events WHERE project_id = $1', [project.id])).rows;
            const stored = new Set(rows.map((r) => r.id.replaceAll('-', '')));
            return [...acked].filter((id) => !stored.has(id)).length;
          },
          { timeout: 60_000, interval: 250 },
        )
        .toBe(0);
    } finally {
      await db.end();
    }
  }, 180_000);
});
