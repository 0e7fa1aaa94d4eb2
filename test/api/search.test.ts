import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from './access-fixtures.ts';

let s: TestServer;
let alphaOne: string;
let alphaTwo: string;
let ana: { id: string; headers: Record<string, string> };
let bo: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  s = await startTestServer();
  alphaOne = await makeTeam(s, 'alpha-one');
  alphaTwo = await makeTeam(s, 'alpha-two');
  await makeTeam(s, 'beta');
  ana = await makeUser(s, 'ana', { [alphaOne]: 'viewer' }, 'read');
  bo = await makeUser(s, 'bo', { [alphaTwo]: 'admin' });
  for (const [user, name] of [[ana.id, 'alpha-ci'], [bo.id, 'alpha-deploy']]) {
    expect((await s.api('POST', '/api/v1/tokens', { name, scope: 'read', user })).statusCode).toBe(201);
  }
  const hook = await s.api('POST', '/api/v1/webhooks', { url: 'https://alpha.example/hook' }, { 'x-svc-team': 'alpha-two' });
  expect(hook.statusCode, hook.body).toBe(201);
});
afterAll(async () => s?.close());

const search = async (query: string, headers?: Record<string, string>) => {
  const res = await s.api('GET', `/api/v1/search?${query}`, undefined, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: { type: string; id: string; title: string; url: string; team: string | null }[]; next_cursor: string | null };
};

describe('GET /api/v1/search', () => {
  it('returns only what the caller may see, in one item shape', async () => {
    const found = await search('q=alpha', ana.headers);
    expect(found.items).toEqual([
      { type: 'team', id: alphaOne, title: 'alpha-one', url: `${s.ctx.config.publicUrl}/api/v1/teams/${alphaOne}`, team: alphaOne },
      { type: 'token', id: expect.any(String), title: 'alpha-ci', url: expect.stringMatching(/\/api\/v1\/tokens\/[0-9a-f]+$/), team: null },
    ]);
    expect(found.next_cursor).toBeNull();

    const forBo = await search('q=ALPHA', bo.headers);
    expect(forBo.items.map((i) => `${i.type}:${i.title}`)).toEqual(['team:alpha-two', 'token:alpha-deploy', 'webhook:https://alpha.example/hook']);
    expect(forBo.items[2].team).toBe(alphaTwo);
  });

  it('shows administrators every team, and tokens only to their owner', async () => {
    const found = await search('q=a');
    expect(found.items.filter((i) => i.type === 'team').map((i) => i.title)).toEqual(['alpha-one', 'alpha-two', 'beta']);
    expect(found.items.filter((i) => i.type === 'token')).toEqual([]);
  });

  it('finds a resource by its exact id and takes wildcards literally', async () => {
    expect((await search(`q=${alphaTwo}`, bo.headers)).items.map((i) => i.id)).toEqual([alphaTwo]);
    expect((await search('q=%25', ana.headers)).items).toEqual([]);
    expect((await search('q=_', ana.headers)).items).toEqual([]);
  });

  it('narrows by type and pages with an opaque cursor', async () => {
    expect((await search('q=alpha&type=token', bo.headers)).items.map((i) => i.type)).toEqual(['token']);
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await search(`q=alpha&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, bo.headers);
      expect(page.items.length).toBe(1);
      seen.push(page.items[0].id);
      cursor = page.next_cursor ?? '';
    } while (cursor);
    expect(seen).toEqual((await search('q=alpha', bo.headers)).items.map((i) => i.id));
  });

  it('refuses a missing query, an unknown type, a bad cursor and no credentials', async () => {
    expectErrorCode(await s.api('GET', '/api/v1/search'), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', '/api/v1/search?q='), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', '/api/v1/search?q=a&type=planet'), 400, 'validation_failed');
    expectErrorCode(await s.api('GET', '/api/v1/search?q=a&cursor=nope'), 400, 'invalid_cursor');
    expectErrorCode(await s.api('GET', '/api/v1/search?q=a&limit=500'), 400, 'invalid_limit');
    expectErrorCode(await s.api('GET', '/api/v1/search?q=a', undefined, { authorization: '' }), 401, 'unauthenticated');
  });
});
