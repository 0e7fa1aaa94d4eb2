/** Calls to a spawned node's API as the administrator (SVC_ADMIN_TOKEN), for tests that run real node processes. */
import { expect } from 'vitest';
import { ADMIN_TOKEN } from './test-server.ts';

/** One API call that must succeed (2xx); returns the JSON answer. */
export async function nodeApi(url: string, method: string, path: string, body?: unknown, team?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...(team ? { 'x-svc-team': team } : {}) },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

/** A team named `name` and one project in it that takes up to `eventsPerMinute`; returns its id and DSN key. */
export async function nodeProject(url: string, name: string, eventsPerMinute: number): Promise<{ id: number; key: string }> {
  await nodeApi(url, 'POST', '/api/v1/teams', { name });
  const p = await nodeApi(url, 'POST', '/api/v1/projects', { name, events_per_minute: eventsPerMinute }, name);
  return { id: p.id as number, key: p.public_key as string };
}
