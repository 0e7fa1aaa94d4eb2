import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  expect((await s.api('POST', '/api/v1/teams', { name: 'acme' })).statusCode).toBe(201);
});
afterAll(async () => s?.close());

describe('projects API (minimal)', () => {
  it('creates a project with a numeric id and a DSN built from the public URL', async () => {
    s.ctx.config.publicUrl = 'https://errors.example.com/base';
    const res = await s.api('POST', '/api/v1/projects', { name: 'Web Shop', events_per_minute: 50 }, { 'x-svc-team': 'acme' });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(typeof p.id).toBe('number');
    expect(p).toMatchObject({ name: 'Web Shop', slug: 'web-shop', events_per_minute: 50, spike_threshold: 100, retention_days: 30, scrub_keys: [] });
    expect(p.dsn).toBe(`https://${p.public_key}@errors.example.com/base/${p.id}`);
    expect(p.public_key).toMatch(/^[0-9a-f]{32}$/);

    const again = await s.api('POST', '/api/v1/projects', { name: 'web shop' }, { 'x-svc-team': 'acme' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('conflict');

    const got = await s.api('GET', `/api/v1/projects/${p.id}`);
    expect(got.json()).toEqual(p);
    const list = await s.api('GET', '/api/v1/projects?team=acme');
    expect(list.json().items.map((x: { id: number }) => x.id)).toContain(p.id);
    expect(list.json().next_cursor).toBeNull();
  });

  it('needs a team and refuses bad ids', async () => {
    const res = await s.api('POST', '/api/v1/projects', { name: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('team_required');
    expect((await s.api('GET', '/api/v1/projects/abc')).json().error.code).toBe('invalid_project_id');
    expect((await s.api('GET', '/api/v1/projects/999999')).statusCode).toBe(404);
    expect((await s.api('GET', '/api/v1/issues/zz')).statusCode).toBe(404);
  });

  it('pages the project list with a cursor', async () => {
    for (const name of ['p1', 'p2', 'p3']) await s.api('POST', '/api/v1/projects', { name }, { 'x-svc-team': 'acme' });
    const first = (await s.api('GET', '/api/v1/projects?limit=2')).json();
    expect(first.items).toHaveLength(2);
    const second = (await s.api('GET', `/api/v1/projects?limit=2&cursor=${first.next_cursor}`)).json();
    expect(second.items[0].id).toBeGreaterThan(first.items[1].id);
  });
});
