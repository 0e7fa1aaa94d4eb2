/** Helpers for ingest tests: projects with DSNs, envelopes, posting, and waiting for the writer. */
import type { LightMyRequestResponse } from 'fastify';
import type { Queryable } from '../../../core/db/db.ts';
import type { TestServer } from '../../support/test-server.ts';

export interface TestProject {
  id: number;
  dsn: string;
  publicKey: string;
  team: string;
}

let teams = 0;

/** A team (created once per server) and a project in it. */
export async function createProject(s: TestServer, body: Record<string, unknown> = {}, team?: string): Promise<TestProject> {
  const teamName = team ?? `team-${process.pid}-${++teams}`;
  if (!team) {
    const t = await s.api('POST', '/api/v1/teams', { name: teamName });
    if (t.statusCode !== 201) throw new Error(`team: ${t.body}`);
  }
  const res = await s.api('POST', '/api/v1/projects', { name: `p-${Math.random().toString(36).slice(2, 8)}`, ...body }, { 'x-svc-team': teamName });
  if (res.statusCode !== 201) throw new Error(`project: ${res.body}`);
  const p = res.json() as { id: number; dsn: string; public_key: string; team: string };
  return { id: p.id, dsn: p.dsn, publicKey: p.public_key, team: p.team };
}

/** An envelope: a header line, then each item as a header line and its payload (objects become JSON). */
export function envelope(header: Record<string, unknown>, items: Array<[Record<string, unknown>, unknown]>): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header))];
  for (const [h, payload] of items) {
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
    parts.push(Buffer.from('\n' + JSON.stringify(h) + '\n'), body);
  }
  return Buffer.concat(parts);
}

export function eventEnvelope(event: Record<string, unknown>, header: Record<string, unknown> = {}): Buffer {
  return envelope(header, [[{ type: 'event' }, event]]);
}

export function randomEventId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

export function post(s: TestServer, path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return s.app.inject({ method: 'POST', url: path, payload: body, headers: { 'content-type': 'application/x-sentry-envelope', ...headers } });
}

export function sentryAuth(key: string): Record<string, string> {
  return { 'x-sentry-auth': `Sentry sentry_key=${key}, sentry_version=7, sentry_client=test/1.0` };
}

/** Polls until fn returns a truthy value (the writer flushes every few ms). */
export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A stored event's document in a query's select list, from whichever column holds it (SVC_EVENT_DOCUMENTS). */
export const STORED_DOCUMENT = 'COALESCE(doc, data::json) AS data';

export async function countEvents(db: Queryable, projectId: number): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
  return r.rows[0].n;
}

export async function waitForEvents(db: Queryable, projectId: number, n: number): Promise<void> {
  await waitFor(async () => (await countEvents(db, projectId)) >= n);
}

/** Sum of ingest_outcomes for a project, by "outcome" or "outcome:reason". */
export async function outcomes(db: Queryable, projectId: number): Promise<Record<string, number>> {
  const r = await db.query<{ outcome: string; reason: string; q: number }>(
    'SELECT outcome, reason, sum(quantity)::int AS q FROM ingest_outcomes WHERE project_id = $1 GROUP BY outcome, reason',
    [projectId],
  );
  const out: Record<string, number> = {};
  for (const row of r.rows) out[row.reason ? `${row.outcome}:${row.reason}` : row.outcome] = row.q;
  return out;
}
