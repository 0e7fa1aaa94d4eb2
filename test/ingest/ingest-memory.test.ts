/**
 * Memory is bounded for any input: 150 concurrent gzip envelopes of about 20 KB that inflate to 19 MB each, sent to
 * a real node (child process, real Postgres) with a wrong key, with a wrong key in the envelope dsn only, and with
 * the project's valid DSN key (public by design, so the real threat). The node's PSS, summed over its process tree,
 * stays under 400 MB at its peak and comes back under 300 MB; a request the budget cannot take is refused with 503
 * ingest_overloaded and Retry-After, never a 5xx of another kind.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { randomHex } from '../../core/ids.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { createTestDatabase, REAL_PG, REAL_REDIS, type TestDatabase } from '../support/test-db.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { envelope, sentryAuth, waitFor } from './support/ingest-helpers.ts';
import { samplePss, treePssMb } from './support/process-memory.ts';

const CONCURRENT = 150;
const INFLATED = 19 * 1024 * 1024;
const PEAK_MB = 400;
const AFTER_MB = 300;

describe.skipIf(!REAL_PG || process.platform !== 'linux')('memory under concurrent inflating envelopes', () => {
  let tdb: TestDatabase;
  let node: NodeProcess;
  let project: { id: number; publicKey: string };
  const agent = new Agent({ connections: CONCURRENT + 10 });
  const figures: string[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.db.close();
    node = await spawnNode('all', {
      DATABASE_URL: tdb.url as string, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY,
      ...(REAL_REDIS ? { REDIS_URL: REAL_REDIS, SVC_REDIS_PREFIX: `t${randomHex(4)}:` } : {}),
    });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    await fetch(`${node.url}/api/v1/teams`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'mem' }) });
    const res = await fetch(`${node.url}/api/v1/projects`, { method: 'POST', headers: { ...admin, 'x-svc-team': 'mem' }, body: JSON.stringify({ name: 'mem', events_per_minute: 100_000 }) });
    const p = (await res.json()) as { id: number; public_key: string };
    project = { id: p.id, publicKey: p.public_key };
  }, 120_000);

  afterAll(async () => {
    // Printed for docs/errors.md and the report: what this machine measured.
    if (figures.length > 0) console.log(`ingest memory (PSS, MB): ${figures.join('; ')}`);
    await agent.close();
    await node?.stop();
    await tdb?.drop();
  });

  /** An envelope whose attachment is INFLATED bytes of one letter: about 20 KB as gzip. */
  function bomb(header: Record<string, unknown>): Buffer {
    const head = envelope(header, [[{ type: 'attachment', length: INFLATED, filename: 'a.bin' }, Buffer.alloc(0)]]);
    return zlib.gzipSync(Buffer.concat([head, Buffer.alloc(INFLATED, 0x41)]), { level: 9 });
  }

  async function attack(name: string, body: Buffer, headers: Record<string, string>): Promise<Map<string, number>> {
    const idle = treePssMb(node.proc.pid as number);
    const sampler = samplePss(node.proc.pid as number);
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, async () => {
      const res = await request(`${node.url}/api/${project.id}/envelope/`, {
        method: 'POST', dispatcher: agent, body,
        headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip', ...headers },
      });
      const text = await res.body.text();
      if (res.statusCode === 503) expect(res.headers['retry-after']).toBeDefined();
      return `${res.statusCode} ${res.statusCode === 200 ? '' : (JSON.parse(text) as { error: { code: string } }).error.code}`.trim();
    }));
    const peak = sampler.stop();
    // Freed memory goes back once the node has collected it: poll rather than sleep.
    const after = await waitFor(async () => {
      const v = treePssMb(node.proc.pid as number);
      return v < AFTER_MB ? v : undefined;
    }, 30_000).catch(() => treePssMb(node.proc.pid as number));
    const counts = new Map<string, number>();
    for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
    figures.push(`${name}: before ${idle.toFixed(0)}, peak ${peak.toFixed(0)}, after ${after.toFixed(0)} (${[...counts].map(([k, n]) => `${n}× ${k}`).join(', ')})`);
    expect(peak, `${name}: peak PSS`).toBeLessThan(PEAK_MB);
    expect(after, `${name}: PSS after`).toBeLessThan(AFTER_MB);
    return counts;
  }

  it('with a wrong key: every request refused 403 before inflating', async () => {
    const body = bomb({});
    expect(body.length).toBeLessThan(40 * 1024);
    const counts = await attack('wrong key', body, sentryAuth('0'.repeat(32)));
    expect(counts.get('403 unknown_client_key')).toBe(CONCURRENT);
  }, 180_000);

  it('with a wrong key in the envelope dsn only: refused after inflating the first line', async () => {
    const counts = await attack('wrong dsn key', bomb({ dsn: `http://${'0'.repeat(32)}@x.test/${project.id}` }), {});
    expect(counts.get('403 unknown_client_key')).toBe(CONCURRENT);
  }, 180_000);

  it('with the valid DSN key: accepted within the budget, the rest 503 ingest_overloaded', async () => {
    const counts = await attack('valid key', bomb({}), sentryAuth(project.publicKey));
    expect(counts.get('200')).toBeGreaterThanOrEqual(1);
    expect((counts.get('200') ?? 0) + (counts.get('503 ingest_overloaded') ?? 0)).toBe(CONCURRENT);
  }, 180_000);
});
