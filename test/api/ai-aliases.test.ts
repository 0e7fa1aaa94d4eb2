import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupCache } from '../../core/cache.ts';
import { ALIASES_CACHE } from '../../core/ai/cache-names.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, setRole, tokenFor } from './identity-fixtures.ts';

let s: TestServer;
let alice: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer();
  await createTeam(s, 'alpha');
  await createUser(s, 'alice');
  await setRole(s, 'alpha', 'alice', 'owner');
  alice = bearer((await tokenFor(s, 'alice', 'write')).secret);
});
afterAll(async () => s?.close());

const put = (name: string, models: unknown, headers?: Record<string, string>) => s.api('PUT', `/api/v1/aliases/${encodeURIComponent(name)}`, { models }, headers);

describe('model aliases', () => {
  it('creates, replaces, shows and deletes an alias', async () => {
    let res = await put('smart', ['claude-opus-4-6', 'gpt-5']);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ name: 'smart', models: ['claude-opus-4-6', 'gpt-5'] });
    expect(res.json().warnings).toBeUndefined();
    res = await put('smart', ['gpt-5', 'claude-opus-4-6', 'gemini-2.5-pro']);
    expect(res.statusCode).toBe(200);
    expect(res.json().models).toEqual(['gpt-5', 'claude-opus-4-6', 'gemini-2.5-pro']);
    res = await s.api('GET', '/api/v1/aliases/smart', undefined, alice);
    expect(res.statusCode).toBe(200);
    expect(res.json().models[0]).toBe('gpt-5');
    expectError(await s.api('DELETE', '/api/v1/aliases/smart', undefined, alice), 403, 'superuser_required');
    res = await s.api('DELETE', '/api/v1/aliases/smart');
    expect(res.statusCode).toBe(200);
    expectError(await s.api('GET', '/api/v1/aliases/smart'), 404, 'not_found');
    expectError(await s.api('DELETE', '/api/v1/aliases/smart'), 404, 'not_found');
  });

  it('lets superusers write and every authenticated caller read', async () => {
    expectError(await put('mine', ['gpt-5'], alice), 403, 'superuser_required');
    await put('shared', ['gpt-5']);
    expect((await s.api('GET', '/api/v1/aliases/shared', undefined, alice)).statusCode).toBe(200);
    expect((await s.api('GET', '/api/v1/aliases', undefined, alice)).statusCode).toBe(200);
    expectError(await s.api('GET', '/api/v1/aliases', undefined, { authorization: '' }), 401, 'unauthenticated');
  });

  it('refuses bad model lists with the entry named', async () => {
    const cases: [unknown, RegExp][] = [
      [[], /at least 1 model/],
      [Array.from({ length: 11 }, (_, i) => `m-${i}`), /at most 10/],
      [['claude-*'], /patterns are not allowed/],
      [['gpt-5', 'gpt-5'], /twice/],
      [['has space'], /models\[0\]/],
      [[''], /models\[0\].*empty/],
      ['gpt-5', /models/],
    ];
    for (const [models, message] of cases) {
      const res = await put('bad', models);
      expectError(res, 400, 'validation_failed');
      expect(res.json().error.message).toMatch(message);
    }
    expectError(await put('bad*', ['gpt-5']), 400, 'validation_failed');
    expectError(await s.api('PUT', '/api/v1/aliases/x', { models: ['gpt-5'], order: 1 }), 400, 'validation_failed');
  });

  it('does not nest aliases, so no cycle can form', async () => {
    await put('fast', ['claude-haiku-4-5', 'gpt-5-mini']);
    let res = await put('fast-or-smart', ['fast', 'gpt-5']);
    expectError(res, 400, 'validation_failed');
    expect(res.json().error.message).toContain('"fast" is itself an alias');
    await put('cheap', ['gpt-5-nano', 'later-alias']);
    res = await put('later-alias', ['gpt-5']);
    expectError(res, 400, 'validation_failed');
    expect(res.json().error.message).toContain('"cheap" lists "later-alias"');
    res = await put('gpt-4o', ['gpt-4o', 'gpt-4.1']);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().warnings).toBeUndefined();
  });

  it('warns about models no one knows of', async () => {
    const res = await put('typo', ['claude-sonet-4-5', 'gpt-5']);
    expect(res.statusCode).toBe(201);
    expect(res.json().warnings).toHaveLength(1);
    expect(res.json().warnings[0]).toContain('claude-sonet-4-5');
  });

  it('pages by name', async () => {
    for (const n of ['p-a', 'p-b', 'p-c']) await put(n, ['gpt-5']);
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.api('GET', `/api/v1/aliases?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      names.push(...res.json().items.map((a: { name: string }) => a.name));
      cursor = res.json().next_cursor;
    } while (cursor);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['p-a', 'p-b', 'p-c', 'shared']));
    expect(new Set(names).size).toBe(names.length);
  });

  it('drops the alias cache on every change', async () => {
    const cache = s.ctx.caches.register(new LookupCache<number>(ALIASES_CACHE));
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('all', load);
    await put('cached', ['gpt-5']);
    expect(await cache.get('all', load)).toBe(2);
    await s.api('DELETE', '/api/v1/aliases/cached');
    expect(await cache.get('all', load)).toBe(3);
  });
});
