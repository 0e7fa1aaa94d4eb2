/**
 * Postgres down long enough for a node's events journal to fill (SVC_JOURNAL_MAX_BYTES at its 1 MB minimum): new
 * events are refused with 503 journal_full and Retry-After, /healthz says the node no longer keeps requests, and
 * once Postgres is back both recover by themselves and every event acknowledged before is stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventEnvelope, randomEventId, sentryAuth } from '../ingest/support/ingest-helpers.ts';
import { nodeProject } from '../support/node-api.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';

describe('the events journal fills while Postgres is down', () => {
  let pgs: ThrowawayPostgres;
  let node: NodeProcess;
  let dataDir: string;
  let project: { id: number; key: string };

  beforeAll(async () => {
    pgs = await startThrowawayPostgres();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-journal-full-'));
    node = await spawnNode('all', { DATABASE_URL: pgs.url, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, SVC_DATA_DIR: dataDir, SVC_JOURNAL_MAX_BYTES: String(1024 * 1024) });
    project = await nodeProject(node.url, 'jf', 1_000_000);
  }, 120_000);

  afterAll(async () => {
    await node?.stop('SIGKILL').catch(() => {});
    await pgs?.cleanup();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** One event of about 40 KB; returns the status and Retry-After. */
  const send = async (acked: Set<string>) => {
    const id = randomEventId();
    const res = await fetch(`${node.url}/api/${project.id}/envelope/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(project.key) },
      body: new Uint8Array(eventEnvelope({ event_id: id, message: 'journal full', extra: { blob: randomEventId().repeat(1250) } }, { event_id: id })),
    });
    const body = (await res.json()) as { error?: { code: string } };
    if (res.status === 200) acked.add(id);
    return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') };
  };

  it('refuses with 503 journal_full, turns /healthz 503, and recovers when Postgres is back', async () => {
    const acked = new Set<string>();
    // Warm the project and key caches, so the fast path needs no database.
    expect((await send(acked)).status).toBe(200);
    await pgs.stop('immediate');
    let refusal: Awaited<ReturnType<typeof send>> | undefined;
    try {
      for (let i = 0; i < 400 && !refusal; i++) {
        const r = await send(acked);
        if (r.status !== 200) refusal = r;
      }
      expect(refusal).toMatchObject({ status: 503, code: 'journal_full' });
      expect(refusal?.retryAfter).toMatch(/^\d+$/);
      expect(acked.size).toBeGreaterThan(10);
      const z = await fetch(`${node.url}/healthz`);
      expect(z.status).toBe(503);
      expect(z.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await z.json()) as { error: { details: { checks: Record<string, unknown> } } }).error.details.checks.events_journal).toMatchObject({ ok: false, database_down: true });
    } finally {
      await pgs.start();
    }
    await expect.poll(async () => (await fetch(`${node.url}/healthz`)).status, { timeout: 60_000, interval: 250 }).toBe(200);
    await expect.poll(async () => (await send(acked)).status, { timeout: 30_000, interval: 250 }).toBe(200);
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    try {
      let missing: string[] = [];
      await expect
        .poll(
          async () => {
            const stored = new Set((await db.query<{ id: string }>('SELECT event_id AS id FROM events WHERE project_id = $1', [project.id])).rows.map((r) => r.id.replaceAll('-', '')));
            missing = [...acked].filter((id) => !stored.has(id));
            return missing.length;
          },
          { timeout: 60_000, interval: 250 },
        )
        .toBe(0);
    } finally {
      await db.end();
    }
    expect(node.proc.exitCode).toBeNull();
  }, 180_000);
});
