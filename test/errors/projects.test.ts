/**
 * Projects: create, list, show, update (applied by the ingest at once), delete, DSN rotation (the old key refused at
 * once), the reporting script's 404 for a rotated key, and who may do what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from '../api/access-fixtures.ts';
import { createTeamProject, exceptionEvent, postStore, storeAll, storeEvent } from './support/errors-fixtures.ts';

let s: TestServer;
let team: string;
let other: string;
let member: { id: string; headers: Record<string, string> };
let viewer: { id: string; headers: Record<string, string> };
let reader: { id: string; headers: Record<string, string> };
let admin: { id: string; headers: Record<string, string> };
let outsider: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  s = await startTestServer();
  team = await makeTeam(s, 'shop');
  other = await makeTeam(s, 'elsewhere');
  member = await makeUser(s, 'pm-member', { [team]: 'member' });
  viewer = await makeUser(s, 'pm-viewer', { [team]: 'viewer' });
  reader = await makeUser(s, 'pm-reader', { [team]: 'member' }, 'read');
  admin = await makeUser(s, 'pm-admin', { [team]: 'admin' });
  outsider = await makeUser(s, 'pm-outsider', { [other]: 'owner' });
});
afterAll(async () => s?.close());

const H = { 'x-svc-team': 'shop' };

describe('projects', () => {
  it('creates with the defaults, shows, lists (by team and slug) and updates', async () => {
    const created = await s.api('POST', '/api/v1/projects', { name: 'Checkout Web', platform: 'javascript' }, { ...H, ...member.headers });
    expect(created.statusCode, created.body).toBe(201);
    const p = created.json();
    expect(p).toMatchObject({ team, name: 'Checkout Web', slug: 'checkout-web', platform: 'javascript', events_per_minute: 600, spike_threshold: 100, scrub_keys: [], retention_days: 30 });
    expect(p.dsn).toBe(`${s.ctx.config.publicUrl.replace('://', `://${p.public_key}@`)}/${p.id}`);

    expect((await s.api('GET', `/api/v1/projects/${p.id}`)).json()).toEqual(p);
    const bySlug = (await s.api('GET', '/api/v1/projects?slug=checkout-web&team=shop')).json();
    expect(bySlug.items.map((x: { id: number }) => x.id)).toEqual([p.id]);

    const patched = await s.api('PATCH', `/api/v1/projects/${p.id}`, { name: 'Checkout', events_per_minute: 50, spike_threshold: 7, scrub_keys: ['ssn', 'ssn'], retention_days: 14, platform: null }, member.headers);
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: p.id, name: 'Checkout', slug: 'checkout-web', events_per_minute: 50, spike_threshold: 7, scrub_keys: ['ssn'], retention_days: 14, platform: null, dsn: p.dsn });
  });

  it('refuses bad updates with precise codes', async () => {
    const a = await createTeamProject(s, 'shop', { slug: 'taken' });
    const b = await createTeamProject(s, 'shop');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${b.id}`, { slug: 'taken' }), 409, 'conflict');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${b.id}`, {}), 400, 'validation_failed');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${b.id}`, { retention_days: 0 }), 400, 'validation_failed');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${b.id}`, { owner: 'me' }), 400, 'validation_failed');
    expectErrorCode(await s.api('PATCH', '/api/v1/projects/abc', { name: 'x' }), 400, 'invalid_project_id');
    expectErrorCode(await s.api('PATCH', '/api/v1/projects/987654', { name: 'x' }), 404, 'not_found');
    expect((await s.api('GET', `/api/v1/projects/${a.id}`)).json().slug).toBe('taken');
  });

  it('applies a changed events-per-minute limit and scrub list to the next event', async () => {
    const p = await createTeamProject(s, 'shop');
    await storeEvent(s, p, exceptionEvent('Error', 'first'));
    expect((await s.api('PATCH', `/api/v1/projects/${p.id}`, { events_per_minute: 1, scrub_keys: ['favourite_colour'] })).statusCode).toBe(200);
    const limited = await postStore(s, p.id, p.public_key, exceptionEvent('Error', 'second'));
    expectErrorCode(limited, 429, 'project_events_per_minute');

    const q = await createTeamProject(s, 'shop');
    await storeEvent(s, q, exceptionEvent('Error', 'warm the cache'));
    expect((await s.api('PATCH', `/api/v1/projects/${q.id}`, { scrub_keys: ['favourite_colour'] })).statusCode).toBe(200);
    const [id] = await storeAll(s, q, [exceptionEvent('Error', 'scrub me', {}, { extra: { favourite_colour: 'octarine-7731' } })]);
    const stored = await s.api('GET', `/api/v1/events/${id}`);
    expect(stored.statusCode, stored.body).toBe(200);
    expect(JSON.stringify(stored.json().data)).not.toContain('octarine-7731');
  });

  it('deletes a project (team admins only); its DSN stops at once', async () => {
    const p = await createTeamProject(s, 'shop');
    await storeEvent(s, p, exceptionEvent('Error', 'before delete'));
    expectErrorCode(await s.api('DELETE', `/api/v1/projects/${p.id}`, undefined, member.headers), 403, 'forbidden');
    const del = await s.api('DELETE', `/api/v1/projects/${p.id}`, undefined, admin.headers);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json().id).toBe(p.id);
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}`), 404, 'not_found');
    expectErrorCode(await postStore(s, p.id, p.public_key, exceptionEvent('Error', 'after delete')), 404, 'not_found');
  });
});

describe('client keys (DSN rotation)', () => {
  it('rotates: the old key is refused at once, the new one works, both are listed', async () => {
    const p = await createTeamProject(s, 'shop');
    // The ingest now caches the old key as valid.
    await storeEvent(s, p, exceptionEvent('Error', 'old key'));
    expect((await s.app.inject({ method: 'GET', url: `/js/${p.public_key}.js` })).statusCode).toBe(200);

    const rotated = await s.api('POST', `/api/v1/projects/${p.id}/keys`, undefined, member.headers);
    expect(rotated.statusCode, rotated.body).toBe(201);
    const k = rotated.json();
    expect(k).toMatchObject({ project: p.id, active: true, revoked: [p.public_key], revoked_at: null });
    expect(k.public_key).not.toBe(p.public_key);
    expect(k.dsn).toBe(p.dsn.replace(p.public_key, k.public_key));

    expectErrorCode(await postStore(s, p.id, p.public_key, exceptionEvent('Error', 'old key again')), 403, 'unknown_client_key');
    expect((await postStore(s, p.id, k.public_key, exceptionEvent('Error', 'new key'))).statusCode).toBe(200);
    expect((await s.app.inject({ method: 'GET', url: `/js/${p.public_key}.js` })).statusCode).toBe(404);

    const keys = (await s.api('GET', `/api/v1/projects/${p.id}/keys`, undefined, viewer.headers)).json();
    expect(keys.items.map((x: { public_key: string; active: boolean }) => [x.public_key, x.active])).toEqual([[k.public_key, true], [p.public_key, false]]);
    expect(keys.items[1].revoked_at).toMatch(/Z$/);
    expect((await s.api('GET', `/api/v1/projects/${p.id}`)).json().public_key).toBe(k.public_key);
  });
});

describe('who may do what', () => {
  it('lets viewers read projects and DSNs but not change them', async () => {
    const p = await createTeamProject(s, 'shop');
    const shown = await s.api('GET', `/api/v1/projects/${p.id}`, undefined, viewer.headers);
    expect(shown.statusCode).toBe(200);
    expect(shown.json().dsn).toBe(p.dsn);
    expect((await s.api('GET', `/api/v1/projects/${p.id}/keys`, undefined, viewer.headers)).statusCode).toBe(200);
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${p.id}`, { name: 'v' }, viewer.headers), 403, 'forbidden');
    expectErrorCode(await s.api('POST', `/api/v1/projects/${p.id}/keys`, undefined, viewer.headers), 403, 'forbidden');
    expectErrorCode(await s.api('POST', '/api/v1/projects', { name: 'v' }, { ...H, ...viewer.headers }), 403, 'forbidden');
  });

  it('caps read tokens to reading', async () => {
    const p = await createTeamProject(s, 'shop');
    expect((await s.api('GET', `/api/v1/projects/${p.id}`, undefined, reader.headers)).statusCode).toBe(200);
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${p.id}`, { name: 'r' }, reader.headers), 403, 'insufficient_scope');
    expectErrorCode(await s.api('POST', `/api/v1/projects/${p.id}/keys`, undefined, reader.headers), 403, 'insufficient_scope');
    expectErrorCode(await s.api('DELETE', `/api/v1/projects/${p.id}`, undefined, reader.headers), 403, 'insufficient_scope');
  });

  it('shows a member of another team nothing', async () => {
    const p = await createTeamProject(s, 'shop');
    expect((await s.api('GET', '/api/v1/projects', undefined, outsider.headers)).json().items).toEqual([]);
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}`, undefined, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('GET', `/api/v1/projects/${p.id}/keys`, undefined, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('POST', `/api/v1/projects/${p.id}/keys`, undefined, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('PATCH', `/api/v1/projects/${p.id}`, { name: 'x' }, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('DELETE', `/api/v1/projects/${p.id}`, undefined, outsider.headers), 404, 'not_found');
    expectErrorCode(await s.api('GET', '/api/v1/projects?team=shop', undefined, outsider.headers), 404, 'not_found');
  });
});
