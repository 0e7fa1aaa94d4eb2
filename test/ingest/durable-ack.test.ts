/**
 * Acknowledged means durable (issue 11 point 2): a real node process takes envelopes from 16 concurrent senders and
 * is killed with SIGKILL in the middle of the load, then started again on the same data directory; every event id
 * it answered 200 for must be stored. Once with Postgres up (acknowledged = committed), once with Postgres stopped
 * while the load runs (acknowledged = fsynced to the node's journal, replayed by the restarted node once Postgres is
 * back, or by `node main.js journal drain`). Runs on a throwaway Postgres, since these cases stop it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '../../core/ids.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { REAL_REDIS } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { eventEnvelope, randomEventId, sentryAuth } from './support/ingest-helpers.ts';

const SENDERS = 16;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

let pgServer: ThrowawayPostgres;
let db: pg.Client;
let env: Record<string, string>;
const dirs: string[] = [];
const nodes: NodeProcess[] = [];

beforeAll(async () => {
  pgServer = await startThrowawayPostgres();
  env = {
    DATABASE_URL: pgServer.url, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY,
    ...(REAL_REDIS ? { REDIS_URL: REAL_REDIS, SVC_REDIS_PREFIX: `t${randomHex(4)}:` } : {}),
  };
}, 120_000);

afterAll(async () => {
  for (const n of nodes) await n.stop('SIGKILL').catch(() => {});
  await db?.end().catch(() => {});
  await pgServer?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<NodeProcess> {
  const node = await spawnNode('all', { ...env, SVC_DATA_DIR: dataDir });
  nodes.push(node);
  return node;
}

async function api(node: NodeProcess, method: string, path: string, body?: unknown, team?: string): Promise<Record<string, unknown>> {
  const res = await fetch(node.url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...(team ? { 'x-svc-team': team } : {}) },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

/** Senders post envelopes until stopped (or the node dies); returns the event ids answered 200. */
function load(node: NodeProcess, project: { id: number; key: string }): { stop(): Promise<Set<string>>; acked: Set<string> } {
  const acked = new Set<string>();
  let running = true;
  const sender = async () => {
    while (running) {
      const id = randomEventId();
      try {
        const res = await fetch(`${node.url}/api/${project.id}/envelope/`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(project.key) },
          body: new Uint8Array(eventEnvelope({ event_id: id, message: `durable ${id.slice(0, 4)}`, level: 'error' }, { event_id: id })),
        });
        await res.arrayBuffer();
        if (res.status === 200) acked.add(id);
      } catch {
        // The node was killed: this event was never acknowledged.
        return;
      }
    }
  };
  const senders = Array.from({ length: SENDERS }, sender);
  return {
    acked,
    stop: async () => {
      running = false;
      await Promise.all(senders);
      return acked;
    },
  };
}

async function connect(): Promise<void> {
  await db?.end().catch(() => {});
  db = new pg.Client({ connectionString: pgServer.url });
  // The server is stopped under it in the second case.
  db.on('error', () => {});
  await db.connect();
}

async function storedIds(projectId: number): Promise<Set<string>> {
  const r = await db.query<{ event_id: string }>('SELECT event_id FROM events WHERE project_id = $1', [projectId]);
  return new Set(r.rows.map((x) => x.event_id.replaceAll('-', '')));
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function untilAcked(l: { acked: Set<string> }, n: number): Promise<void> {
  await until(async () => l.acked.size >= n, 60_000);
}

describe('events answered 200 survive kill -9', () => {
  let project: { id: number; key: string };
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-durable-'));
    dirs.push(dataDir);
    const node = await start(dataDir);
    await api(node, 'POST', '/api/v1/teams', { name: 'durable' });
    const p = await api(node, 'POST', '/api/v1/projects', { name: 'durable', events_per_minute: 10_000_000 }, 'durable');
    project = { id: p.id as number, key: p.public_key as string };
    await connect();
  }, 120_000);

  it('with Postgres up: every acknowledged event is committed', async () => {
    const node = nodes[nodes.length - 1];
    const l = load(node, project);
    await untilAcked(l, 1000);
    await node.stop('SIGKILL');
    const acked = await l.stop();
    expect(acked.size).toBeGreaterThanOrEqual(1000);

    // Acknowledged = committed: each one is stored or still in the inbox (killed before its processing).
    const inbox = await db.query<{ event_id: string }>('SELECT event_id FROM ingest_inbox WHERE project_id = $1', [project.id]);
    const durable = new Set([...(await storedIds(project.id)), ...inbox.rows.map((r) => r.event_id)]);
    expect([...acked].filter((id) => !durable.has(id))).toEqual([]);

    // The restarted node claims the killed node's inbox rows once their lease ran out, and stores them.
    await start(dataDir);
    let missing: string[] = [];
    await until(async () => {
      const stored = await storedIds(project.id);
      missing = [...acked].filter((id) => !stored.has(id));
      return missing.length === 0;
    }, 120_000);
    expect(missing).toEqual([]);
  }, 240_000);

  /** Load with Postgres stopped, then kill -9 and start Postgres again; returns the acknowledged ids. */
  async function loadWhileDown(node: NodeProcess): Promise<Set<string>> {
    // Warm the node's project and key caches, so the fast path needs no database.
    const warm = load(node, project);
    await untilAcked(warm, 20);
    await warm.stop();

    await pgServer.stop('immediate');
    let acked: Set<string>;
    try {
      const l = load(node, project);
      await untilAcked(l, 500);
      await node.stop('SIGKILL');
      acked = await l.stop();
    } finally {
      await pgServer.start();
    }
    expect(acked.size).toBeGreaterThanOrEqual(500);
    expect(readdirSync(join(dataDir, 'journal', 'events')).length).toBeGreaterThan(0);
    await connect();
    return acked;
  }

  it('with Postgres down: every acknowledged event is journaled, and replayed by the restarted node once Postgres is back', async () => {
    const acked = await loadWhileDown(nodes[nodes.length - 1]);
    // Nothing of the load reached Postgres before the kill: the restarted node replays it from the journal.
    await start(dataDir);
    let missing: string[] = [];
    await until(async () => {
      const stored = await storedIds(project.id);
      missing = [...acked].filter((id) => !stored.has(id));
      return missing.length === 0;
    }, 90_000);
    expect(missing).toEqual([]);
    // Replayed segments are deleted.
    await until(async () => readdirSync(join(dataDir, 'journal', 'events')).length === 0, 30_000);
    expect(readdirSync(join(dataDir, 'journal', 'events'))).toEqual([]);
  }, 240_000);

  it('`node main.js journal drain` replays a dead node\'s journal and exits', async () => {
    const acked = await loadWhileDown(nodes[nodes.length - 1]);
    const { stdout } = await run(process.execPath, [join(ROOT, 'main.js'), 'journal', 'drain'], {
      cwd: ROOT, timeout: 120_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env, SVC_DATA_DIR: dataDir },
    });
    expect(stdout).toMatch(/events: \d+ row\(s\) committed; journal empty/);
    expect(readdirSync(join(dataDir, 'journal', 'events'))).toEqual([]);
    const stored = await storedIds(project.id);
    expect([...acked].filter((id) => !stored.has(id))).toEqual([]);
  }, 240_000);
});
