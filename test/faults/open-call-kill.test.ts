/**
 * A node killed with SIGKILL in the middle of a streamed gateway call (issue 11 point 2; docs/operations.md "Open
 * calls"): the client has the head and part of the stream, the node is gone, and no usage record was written. The
 * call's open row (durable before its first byte) is recorded by the leader once its lease runs out, from the
 * reservation estimate: usage_source `estimated`, error_code `node_lost`, status 200, exactly once.
 *
 * Shortened settings so the test waits seconds, not a minute: SVC_OPEN_CALL_LEASE_MS=3000 (the lease),
 * SVC_OPEN_CALL_SWEEP_MS=300 (the leader's job). Two cases on one throwaway Postgres: Postgres up (the row is
 * committed), and Postgres down during the call (the row is only in the node's journal: the node started again on
 * its data directory replays it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { nodeApi } from '../support/node-api.ts';
import { spawnNode, type NodeProcess } from '../support/spawn-node.ts';
import { ADMIN_TOKEN, SECRET_KEY } from '../support/test-server.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.ts';

const LEASE_MS = 3000;

describe('a node killed in the middle of a streamed call', () => {
  let pgs: ThrowawayPostgres;
  let chat: FakeUpstream;
  let db: pg.Client;
  let node: NodeProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-open-kill-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    [pgs, chat] = await Promise.all([startThrowawayPostgres(), startFake('chat', ['gpt-4o-mini'])]);
    env = {
      DATABASE_URL: pgs.url, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_SECRET_KEY: SECRET_KEY, SVC_DATA_DIR: dataDir,
      SVC_OPEN_CALL_LEASE_MS: String(LEASE_MS), SVC_OPEN_CALL_SWEEP_MS: '300',
    };
    node = await spawnNode('all', env);
    await nodeApi(node.url, 'POST', '/api/v1/teams', { name: 'open-kill' });
    await nodeApi(node.url, 'POST', '/api/v1/accounts', { name: 'chat-fake', provider: 'openai', api_key: 'sk-fake-open-kill-0123456789', base_url: `${chat.url}/v1`, models: ['gpt-4o-mini'] });
    db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end().catch(() => {});
    await node?.stop('SIGKILL').catch(() => {});
    await Promise.all([pgs?.cleanup(), chat?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const newKey = async (name: string) => {
    const k = await nodeApi(node.url, 'POST', '/api/v1/keys', { name }, 'open-kill');
    return { id: k.id as string, key: k.key as string };
  };

  const body = (content: string) => ({ model: 'gpt-4o-mini', stream: true, max_tokens: 900, messages: [{ role: 'user', content }] });

  /** Starts a streamed call whose upstream sends two chunks and then waits; resolves once the client has the second. */
  async function openStream(key: string, content: string): Promise<{ rest: Promise<string> }> {
    chat.script({ slow: { delayMs: 120_000, events: 2 } });
    const res = await fetch(`${node.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body(content)),
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('word0')) {
      const r = await reader.read();
      if (r.done) throw new Error(`the stream ended early: ${text}`);
      text += decoder.decode(r.value, { stream: true });
    }
    // What the client gets after that (the connection closes with the node): never the end of the answer.
    const rest = (async () => {
      try {
        for (;;) {
          const r = await reader.read();
          if (r.done) return text;
          text += decoder.decode(r.value, { stream: true });
        }
      } catch {
        return text;
      }
    })();
    return { rest };
  }

  interface Rec { status: number; error_code: string | null; usage_source: string; input_tokens: number; output_tokens: number; cost_usd: number; served_model: string; stream: boolean; ttfb_ms: number | null }
  const recordsOf = async (keyId: string) =>
    (await db.query<Rec>('SELECT status, error_code, usage_source, input_tokens, output_tokens, cost_usd, served_model, stream, ttfb_ms FROM usage_records WHERE key_id = $1', [keyId])).rows;

  /** The call's record, recorded by the leader from the estimate; asserted once, and again to be sure it stays one. */
  async function expectEstimate(keyId: string, content: string): Promise<void> {
    await expect.poll(async () => (await recordsOf(keyId)).length, { timeout: 60_000, interval: 200 }).toBe(1);
    const [r] = await recordsOf(keyId);
    expect(r).toMatchObject({
      status: 200, error_code: 'node_lost', usage_source: 'estimated', served_model: 'gpt-4o-mini', stream: true, ttfb_ms: null,
      input_tokens: Math.ceil(Buffer.byteLength(JSON.stringify(body(content))) / 4), output_tokens: 900,
    });
    expect(r.cost_usd).toBeGreaterThan(0);
    expect((await db.query('SELECT 1 FROM usage_open_calls WHERE key_id = $1', [keyId])).rowCount).toBe(0);
    await new Promise((res) => setTimeout(res, 1000));
    expect(await recordsOf(keyId)).toHaveLength(1);
  }

  it('Postgres up: the open row is recorded from its estimate once its lease runs out', async () => {
    const k = await newKey('killed-up');
    const stream = await openStream(k.key, 'killed while streaming');
    expect((await db.query('SELECT 1 FROM usage_open_calls WHERE key_id = $1', [k.id])).rowCount).toBe(1);
    const killedAt = Date.now();
    await node.stop('SIGKILL');
    expect(await stream.rest).not.toContain('[DONE]');
    expect(await recordsOf(k.id)).toEqual([]);
    node = await spawnNode('all', env);
    await expectEstimate(k.id, 'killed while streaming');
    // Not before its lease ran out (the node renewed it up to the kill).
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 1000);
  }, 180_000);

  it('Postgres down during the call: the node started again replays the journaled open row, then it is recorded', async () => {
    const k = await newKey('killed-down');
    // A first call warms the node's caches (key, routing, prices): the call then needs no database.
    const warm = await fetch(`${node.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'warm' }] }),
    });
    expect(warm.status).toBe(200);
    await warm.text();
    await expect.poll(async () => (await recordsOf(k.id)).length, { timeout: 10_000 }).toBe(1);
    await db.end();
    await pgs.stop('immediate');
    let restarted = false;
    try {
      const stream = await openStream(k.key, 'journaled then killed');
      await node.stop('SIGKILL');
      expect(await stream.rest).not.toContain('[DONE]');
      await pgs.start();
      restarted = true;
    } finally {
      if (!restarted) await pgs.start();
    }
    db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    expect(await recordsOf(k.id)).toHaveLength(1);
    node = await spawnNode('all', env);
    // The warm call's record and the estimate of the killed one.
    await expect.poll(async () => (await recordsOf(k.id)).filter((r) => r.error_code === 'node_lost').length, { timeout: 60_000, interval: 200 }).toBe(1);
    const lost = (await recordsOf(k.id)).filter((r) => r.error_code === 'node_lost');
    expect(lost[0]).toMatchObject({ usage_source: 'estimated', output_tokens: 900, status: 200 });
    await new Promise((res) => setTimeout(res, 1000));
    expect(await recordsOf(k.id)).toHaveLength(2);
  }, 180_000);
});
