/** svc's REST API as the ingest benchmarks use it: an admin token of the run, a project, and the events it stored. */
import { randomHex } from '../../core/ids.ts';

export const ADMIN = `bench-admin-${randomHex(8)}`;
export const SECRET = `bench-secret-${randomHex(16)}`;

export async function api(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Events stored for the project: the sum of its issues' counts (read through the API, on both databases). */
export async function storedEvents(base: string, projectId: number): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const page = await api(base, 'GET', `/api/v1/projects/${projectId}/issues?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    for (const i of page.items as Array<{ count: number }>) total += i.count;
    cursor = page.next_cursor as string | null;
  } while (cursor);
  return total;
}

/** A team and a project without an event limit; the headers and path of its envelope endpoint. */
export async function benchProject(base: string): Promise<{ id: number; path: string; headers: Record<string, string> }> {
  const team = `bench-ingest-${randomHex(3)}`;
  await api(base, 'POST', '/api/v1/teams', { name: team });
  const project = await api(base, 'POST', '/api/v1/projects', { name: 'bench', events_per_minute: 10_000_000 }, { 'x-svc-team': team });
  return {
    id: project.id as number,
    path: `/api/${project.id as number}/envelope/`,
    headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip', 'x-sentry-auth': `Sentry sentry_key=${project.public_key as string}, sentry_version=7` },
  };
}

/** Waits until the project stored `accepted` events (at most 180 s); the count and how long that took after `since`. */
export async function waitStored(base: string, projectId: number, accepted: number, since: number): Promise<{ stored: number; catchUpSeconds: number }> {
  let stored = 0;
  while (performance.now() - since < 180_000) {
    stored = await storedEvents(base, projectId);
    if (stored >= accepted) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  return { stored, catchUpSeconds: (performance.now() - since) / 1000 };
}
