import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupCache } from '../../core/cache.ts';
import { PRICES_CACHE } from '../../core/ai/cache-names.ts';
import { LIST_PRICES } from '../../core/ai/list-prices.ts';
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

const put = (model: string, body: unknown, headers?: Record<string, string>) => s.api('PUT', `/api/v1/prices/${encodeURIComponent(model)}`, body, headers);

interface Item { model: string; list: Record<string, number> | null; override: Record<string, unknown> | null; effective: Record<string, unknown> | null }

describe('prices', () => {
  it('lists every list price with its effective price, in pages', async () => {
    const items: Item[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.api('GET', `/api/v1/prices?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, alice);
      expect(res.statusCode).toBe(200);
      items.push(...res.json().items);
      cursor = res.json().next_cursor;
    } while (cursor);
    expect(items.map((i) => i.model)).toEqual(LIST_PRICES.map((p) => p.model).sort());
    const sonnet = items.find((i) => i.model === 'claude-sonnet-4-5');
    expect(sonnet).toEqual({
      model: 'claude-sonnet-4-5',
      list: { input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75 },
      override: null,
      effective: { input_per_mtok: 3, output_per_mtok: 15, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75, source: 'list', matched: 'claude-sonnet-4-5' },
    });
  });

  it('answers the price that applies to one model id', async () => {
    const res = await s.api('GET', '/api/v1/prices?model=claude-sonnet-4-5-20250929', undefined, alice);
    expect(res.json().items[0]).toMatchObject({ model: 'claude-sonnet-4-5-20250929', list: { input_per_mtok: 3 }, effective: { source: 'list', matched: 'claude-sonnet-4-5' } });
    const unknown = await s.api('GET', '/api/v1/prices?model=my-llama', undefined, alice);
    expect(unknown.json().items[0]).toEqual({ model: 'my-llama', list: null, override: null, effective: null });
    expectError(await s.api('GET', '/api/v1/prices?model=a%20b'), 400, 'validation_failed');
  });

  it('sets, replaces and removes an override', async () => {
    let res = await put('claude-sonnet-4-5', { input_per_mtok: 2.5, output_per_mtok: 12 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      model: 'claude-sonnet-4-5',
      list: { input_per_mtok: 3 },
      override: { input_per_mtok: 2.5, output_per_mtok: 12, cache_read_per_mtok: 0.3, cache_write_per_mtok: 3.75, updated_at: expect.any(String) },
      effective: { input_per_mtok: 2.5, source: 'override', matched: 'claude-sonnet-4-5' },
    });
    res = await put('claude-sonnet-4-5', { input_per_mtok: 2, output_per_mtok: 10, cache_read_per_mtok: 0.2, cache_write_per_mtok: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json().override).toMatchObject({ input_per_mtok: 2, cache_write_per_mtok: 0 });
    const dated = await s.api('GET', '/api/v1/prices?model=claude-sonnet-4-5-20250929');
    expect(dated.json().items[0].effective).toMatchObject({ source: 'list' });
    res = await s.api('DELETE', '/api/v1/prices/claude-sonnet-4-5');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ override: null, effective: { source: 'list', input_per_mtok: 3 } });
    expectError(await s.api('DELETE', '/api/v1/prices/claude-sonnet-4-5'), 404, 'not_found');
  });

  it('accepts patterns and ids with slashes; unknown models get the input price for cache and a warning', async () => {
    let res = await put('local-*', { input_per_mtok: 0, output_per_mtok: 0 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().warnings?.[0]).toContain('local-*');
    const local = await s.api('GET', '/api/v1/prices?model=local-llama-3');
    expect(local.json().items[0].effective).toMatchObject({ source: 'override', matched: 'local-*', input_per_mtok: 0 });
    res = await put('meta-llama/Llama-3.1-8B', { input_per_mtok: 0.2, output_per_mtok: 0.4 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ model: 'meta-llama/Llama-3.1-8B', override: { cache_read_per_mtok: 0.2, cache_write_per_mtok: 0.2 } });
    const listed = (await s.api('GET', '/api/v1/prices?limit=200')).json().items as Item[];
    expect(listed.map((i) => i.model)).toEqual(expect.arrayContaining(['local-*', 'meta-llama/Llama-3.1-8B']));
  });

  it('refuses bad prices and bad model names with the field named', async () => {
    const cases: [unknown, RegExp][] = [
      [{ input_per_mtok: -1, output_per_mtok: 1 }, /input_per_mtok/],
      [{ input_per_mtok: 1, output_per_mtok: 20000 }, /output_per_mtok/],
      [{ input_per_mtok: 1 }, /output_per_mtok/],
      [{ input_per_mtok: '1', output_per_mtok: 1 }, /input_per_mtok/],
      [{ input_per_mtok: 1, output_per_mtok: 1, currency: 'EUR' }, /currency/],
    ];
    for (const [body, message] of cases) {
      const res = await put('gpt-5', body);
      expectError(res, 400, 'validation_failed');
      expect(res.json().error.message).toMatch(message);
    }
    expectError(await put('gpt-**', { input_per_mtok: 1, output_per_mtok: 1 }), 400, 'validation_failed');
    expectError(await put('a b', { input_per_mtok: 1, output_per_mtok: 1 }), 400, 'validation_failed');
  });

  it('lets only superusers change prices', async () => {
    expectError(await put('gpt-5', { input_per_mtok: 1, output_per_mtok: 1 }, alice), 403, 'superuser_required');
    expectError(await s.api('DELETE', '/api/v1/prices/gpt-5', undefined, alice), 403, 'superuser_required');
    expectError(await s.api('GET', '/api/v1/prices', undefined, { authorization: '' }), 401, 'unauthenticated');
  });

  it('drops the price cache on every change', async () => {
    const cache = s.ctx.caches.register(new LookupCache<number>(PRICES_CACHE));
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('all', load);
    await put('o3', { input_per_mtok: 1, output_per_mtok: 4 });
    expect(await cache.get('all', load)).toBe(2);
    await s.api('DELETE', '/api/v1/prices/o3');
    expect(await cache.get('all', load)).toBe(3);
  });
});
