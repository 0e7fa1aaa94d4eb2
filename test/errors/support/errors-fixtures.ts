/** Fixtures of the error-tracking management tests: projects through the API, events through the store endpoint. */
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { TestServer } from '../../support/test-server.ts';

export interface Project {
  id: number;
  team: string;
  dsn: string;
  public_key: string;
  [k: string]: unknown;
}

export async function createTeamProject(s: TestServer, team: string, body: Record<string, unknown> = {}): Promise<Project> {
  const res = await s.api('POST', '/api/v1/projects', { name: `p-${Math.random().toString(36).slice(2, 8)}`, ...body }, { 'x-svc-team': team });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Project;
}

export function eventId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

/** An exception event raised in `fn` of `file`, with a distinct grouping per (type, file, fn). */
export function exceptionEvent(type: string, message: string, where: { file?: string; fn?: string } = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: eventId(),
    level: 'error',
    platform: 'javascript',
    exception: { values: [{ type, value: message, stacktrace: { frames: [{ filename: where.file ?? 'app/main.js', function: where.fn ?? 'run', lineno: 1, in_app: true }] } }] },
    ...extra,
  };
}

/** Posts one event to the store endpoint with the project's key; expects 200. */
export async function storeEvent(s: TestServer, project: { id: number; public_key: string }, event: Record<string, unknown>): Promise<string> {
  const res = await postStore(s, project.id, project.public_key, event);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as string;
}

export function postStore(s: TestServer | { app: TestServer['app'] }, projectId: number, key: string, event: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return s.app.inject({
    method: 'POST',
    url: `/api/${projectId}/store/?sentry_key=${key}`,
    payload: JSON.stringify(event),
    headers: { 'content-type': 'text/plain' },
  });
}

/** Polls until fn returns a truthy value (the ingest writer flushes every few ms). */
export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function waitForEvents(s: TestServer, projectId: number, n: number): Promise<void> {
  await waitFor(async () => {
    const r = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
    return r.rows[0].n >= n;
  });
}

/** Stores the events and waits until the writer has written every one of them. */
export async function storeAll(s: TestServer, project: { id: number; public_key: string }, events: Record<string, unknown>[]): Promise<string[]> {
  const ids: string[] = [];
  for (const e of events) ids.push(await storeEvent(s, project, e));
  await waitFor(async () => {
    const r = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND event_id = ANY($2::text[])', [project.id, ids]);
    return r.rows[0].n === new Set(ids).size;
  });
  return ids;
}

export async function issueOfEvent(s: TestServer, projectId: number, id: string): Promise<string> {
  const r = await s.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE project_id = $1 AND event_id = $2', [projectId, id]);
  expect(r.rows[0], `event ${id} stored`).toBeDefined();
  return r.rows[0].issue_id;
}
