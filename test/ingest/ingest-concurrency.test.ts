/**
 * Exactness under concurrency: a repeated event_id counts once however it arrives, and the project's events per
 * minute and the team's monthly events admit exactly their limit, on one node and across two nodes sharing
 * Postgres and Redis (with DATABASE_URL and REDIS_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Server } from '../../server/build-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { REAL_PG, REAL_REDIS } from '../support/test-db.ts';
import { countEvents, createProject, eventEnvelope, outcomes, randomEventId, sentryAuth, waitFor, waitForEvents } from './support/ingest-helpers.ts';
import { startSecondNode } from '../support/second-node.ts';

const shared = Boolean(REAL_PG && REAL_REDIS);
let s: TestServer;
let second: Server | undefined;
let nodes: FastifyInstance[];

beforeAll(async () => {
  // One event per batch: repeats meet in the database, not inside one batch.
  s = await startTestServer({ env: { SVC_INGEST_BATCH_SIZE: '1' } });
  nodes = [s.app];
  if (shared) {
    second = await startSecondNode(s);
    nodes.push(second.app);
  }
});
afterAll(async () => {
  await second?.close();
  await s?.close();
});

function send(i: number, projectId: number, key: string, body: Buffer) {
  return nodes[i % nodes.length].inject({ method: 'POST', url: `/api/${projectId}/envelope/`, payload: body, headers: sentryAuth(key) });
}

describe(`concurrency (${shared ? 'two nodes on Postgres and Redis' : 'one node, embedded'})`, () => {
  it('counts an event_id sent 20 times at once once', async () => {
    const p = await createProject(s);
    const id = randomEventId();
    const body = eventEnvelope({ message: 'sent twenty times', user: { id: 'u1' } }, { event_id: id });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i, p.id, p.publicKey, body)));
    for (const a of answers) {
      expect(a.statusCode).toBe(200);
      expect(a.json()).toEqual({ id });
    }
    await waitForEvents(s.db, p.id, 1);
    await waitFor(async () => (await outcomes(s.db, p.id)).accepted === 20);
    const issue = await s.db.query<{ count: number; people: number }>('SELECT count, people FROM issues WHERE project_id = $1', [p.id]);
    expect(issue.rows).toEqual([{ count: 1, people: 1 }]);
    const hourly = await s.db.query<{ count: number }>('SELECT h.count FROM issue_hourly h JOIN issues i ON i.id = h.issue_id WHERE i.project_id = $1', [p.id]);
    expect(hourly.rows).toEqual([{ count: 1 }]);
    expect(await countEvents(s.db, p.id)).toBe(1);
  });

  it('admits exactly the events per minute, however the requests are spread', async () => {
    const p = await createProject(s, { events_per_minute: 30 });
    const answers = await Promise.all(Array.from({ length: 90 }, (_, i) =>
      send(i, p.id, p.publicKey, eventEnvelope({ message: 'burst', user: { id: `u${i % 7}` } }, { event_id: randomEventId() }))));
    const ok = answers.filter((a) => a.statusCode === 200);
    const limited = answers.filter((a) => a.statusCode === 429);
    expect(ok).toHaveLength(30);
    expect(limited).toHaveLength(60);
    expect(limited[0].json().error.code).toBe('project_events_per_minute');
    expect(limited[0].headers['x-sentry-rate-limits']).toMatch(/^\d+:error;default:project:project_events_per_minute$/);
    expect(limited[0].headers['x-client-rate-limits']).toBe(limited[0].headers['x-sentry-rate-limits']);
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await waitForEvents(s.db, p.id, 30);
    const issue = await s.db.query<{ count: number; people: number }>('SELECT count, people FROM issues WHERE project_id = $1', [p.id]);
    expect(issue.rows).toEqual([{ count: 30, people: 7 }]);
    const o = await waitFor(async () => {
      const r = await outcomes(s.db, p.id);
      return r.accepted === 30 && r['rate_limited:project_events_per_minute'] === 60 ? r : undefined;
    });
    expect(o).toEqual({ accepted: 30, 'rate_limited:project_events_per_minute': 60 });
  });

  it("admits exactly the team's monthly error events, with an organization-scoped header", async () => {
    const p = await createProject(s, { events_per_minute: 1000 });
    expect((await s.api('PUT', `/api/v1/teams/${p.team}/limits`, { 'errors.events': 12 })).statusCode).toBe(200);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      send(i, p.id, p.publicKey, eventEnvelope({ message: 'monthly' }, { event_id: randomEventId() }))));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(12);
    const limited = answers.filter((a) => a.statusCode === 429);
    expect(limited).toHaveLength(18);
    expect(limited[0].json().error.code).toBe('team_errors_events');
    expect(limited[0].headers['x-sentry-rate-limits']).toMatch(/^\d+:error;default:organization:team_errors_events$/);
    await waitForEvents(s.db, p.id, 12);
  });
});
