import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupCache } from '../../core/cache.ts';
import { open } from '../../core/secret-box.ts';
import { ACCOUNTS_CACHE } from '../../core/ai/cache-names.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, expectError, setRole, tokenFor } from './identity-fixtures.ts';

let s: TestServer;
let alice: Record<string, string>;
let root: Record<string, string>;
const ANT_KEY = 'sk-ant-api03-THISISASECRETKEYVALUE0123456789-wxyz';
const OPENAI_KEY = 'sk-proj-ANOTHERSECRETVALUE9876543210-abcd';

beforeAll(async () => {
  s = await startTestServer();
  await createTeam(s, 'alpha');
  await createUser(s, 'alice');
  await setRole(s, 'alpha', 'alice', 'owner');
  alice = bearer((await tokenFor(s, 'alice', 'write')).secret);
  await createUser(s, 'root', { superuser: true });
  root = bearer((await tokenFor(s, 'root', 'write')).secret);
});
afterAll(async () => s?.close());

const add = (body: Record<string, unknown>, headers?: Record<string, string>) => s.api('POST', '/api/v1/accounts', body, headers);
const noSecrets = (body: string) => {
  for (const secret of [ANT_KEY, OPENAI_KEY, 'THISISASECRET', 'ANOTHERSECRET', 'proxy-pass-123']) expect(body).not.toContain(secret);
  expect(body).not.toContain('secret_sealed');
  expect(body).not.toContain('v1.');
};

describe('provider accounts', () => {
  it('seals the API key and never answers it', async () => {
    const res = await add({ name: 'ant-main', provider: 'anthropic', api_key: ANT_KEY, models: ['claude-*'], weight: 3, priority: 10 });
    expect(res.statusCode, res.body).toBe(201);
    const a = res.json();
    expect(a).toMatchObject({ name: 'ant-main', provider: 'anthropic', kind: 'api_key', base_url: null, proxy_url: null, has_secret: true, secret_hint: 'sk-ant…wxyz', models: ['claude-*'], model_list: null, weight: 3, priority: 10, state: 'active' });
    expect(a.id).toMatch(/^acc_[0-9a-f]{16}$/);
    expect(a.warnings).toBeUndefined();
    noSecrets(res.body);
    const row = await s.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM provider_accounts WHERE id = $1', [a.id]);
    expect(row.rows[0].secret_sealed).not.toContain(ANT_KEY);
    expect(open(s.ctx.secretKey, row.rows[0].secret_sealed)).toBe(ANT_KEY);
    for (const r of [await s.api('GET', `/api/v1/accounts/${a.id}`), await s.api('GET', '/api/v1/accounts'), await s.api('PATCH', `/api/v1/accounts/${a.id}`, { weight: 4 })]) {
      expect(r.statusCode).toBe(200);
      noSecrets(r.body);
    }
  });

  it('rotates the key on PATCH and keeps it sealed', async () => {
    const a = (await add({ name: 'oa', provider: 'openai', api_key: 'sk-old-key-value-0000000000' })).json();
    const res = await s.api('PATCH', `/api/v1/accounts/${a.id}`, { api_key: OPENAI_KEY });
    expect(res.statusCode).toBe(200);
    expect(res.json().secret_hint).toBe('sk-pro…abcd');
    noSecrets(res.body);
    const row = await s.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM provider_accounts WHERE id = $1', [a.id]);
    expect(open(s.ctx.secretKey, row.rows[0].secret_sealed)).toBe(OPENAI_KEY);
  });

  it('is for superusers only', async () => {
    const a = (await add({ name: 'guarded', provider: 'gemini', api_key: 'AIzaSyGUARDEDKEY0123456789' })).json();
    expectError(await add({ name: 'x', provider: 'openai', api_key: OPENAI_KEY }, alice), 403, 'superuser_required');
    expectError(await s.api('GET', '/api/v1/accounts', undefined, alice), 403, 'superuser_required');
    expectError(await s.api('GET', `/api/v1/accounts/${a.id}`, undefined, alice), 403, 'superuser_required');
    expectError(await s.api('PATCH', `/api/v1/accounts/${a.id}`, { weight: 2 }, alice), 403, 'superuser_required');
    expectError(await s.api('DELETE', `/api/v1/accounts/${a.id}`, undefined, alice), 403, 'superuser_required');
    expectError(await s.api('GET', '/api/v1/accounts', undefined, { authorization: '' }), 401, 'unauthenticated');
    expect((await s.api('GET', `/api/v1/accounts/${a.id}`, undefined, root)).statusCode).toBe(200);
  });

  it('refuses subscription accounts, pointing at the sign-in endpoints', async () => {
    const res = await add({ name: 'plan', provider: 'anthropic', kind: 'subscription' });
    expectError(res, 400, 'validation_failed');
    expect(res.json().error.message).toMatch(/OAuth sign-in/);
    expect(res.json().error.details.field).toBe('kind');
  });

  it('validates URLs with precise messages', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ provider: 'openai-compatible', api_key: 'local-key-123' }, 'base_url', /required for provider openai-compatible/],
      [{ provider: 'openai-compatible', api_key: 'local-key-123', base_url: 'ftp://x.example/v1' }, 'base_url', /http or https/],
      [{ provider: 'openai-compatible', api_key: 'local-key-123', base_url: 'not a url' }, 'base_url', /not an absolute URL/],
      [{ provider: 'openai-compatible', api_key: 'local-key-123', base_url: 'http://u:p@x.example/v1' }, 'base_url', /user name or password/],
      [{ provider: 'openai-compatible', api_key: 'local-key-123', base_url: 'http://x.example/v1?a=1' }, 'base_url', /query/],
      [{ provider: 'openai', api_key: OPENAI_KEY, proxy_url: 'socks5://10.0.0.1:1080' }, 'proxy_url', /http or https/],
      [{ provider: 'openai', api_key: OPENAI_KEY, proxy_url: 'http://10.0.0.1:3128/path' }, 'proxy_url', /scheme, host and port/],
    ];
    for (const [body, field, message] of cases) {
      const res = await add({ name: 'bad-url', ...body });
      expectError(res, 400, 'validation_failed');
      expect(res.json().error.details.field).toBe(field);
      expect(res.json().error.message).toMatch(message);
    }
    const ok = await add({ name: 'ollama', provider: 'openai-compatible', api_key: 'ollama-local', base_url: 'http://127.0.0.1:11434/v1/', proxy_url: 'http://user:proxy-pass-123@10.0.0.5:3128' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ base_url: 'http://127.0.0.1:11434/v1', proxy_url: 'http://user:***@10.0.0.5:3128', secret_hint: '…ocal' });
    noSecrets(ok.body);
    expectError(await s.api('PATCH', `/api/v1/accounts/${ok.json().id}`, { base_url: null }), 400, 'validation_failed');
    const cleared = await s.api('PATCH', `/api/v1/accounts/${ok.json().id}`, { proxy_url: null });
    expect(cleared.json().proxy_url).toBeNull();
  });

  it('validates the key, models, weight, priority, state and fields', async () => {
    const base = { name: 'v', provider: 'openai' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /"api_key" is required/],
      [{ api_key: 'short' }, /too short/],
      [{ api_key: 'sk-abc def-0123456789' }, /white space/],
      [{ api_key: 'Bearer sk-abcdef0123456789' }, /without "Bearer"/],
      [{ api_key: OPENAI_KEY, models: ['gpt-**'] }, /models\[0\]/],
      [{ api_key: OPENAI_KEY, weight: 0 }, /weight/],
      [{ api_key: OPENAI_KEY, priority: 5000 }, /priority/],
      [{ api_key: OPENAI_KEY, state: 'paused' }, /state/],
      [{ api_key: OPENAI_KEY, provider: 'azure' }, /provider/],
      [{ api_key: OPENAI_KEY, secret: 'x' }, /unknown field "secret"/],
      [{ api_key: OPENAI_KEY, name: '  ' }, /blank/],
    ];
    for (const [extra, message] of cases) {
      const res = await add({ ...base, ...extra });
      expectError(res, 400, 'validation_failed');
      expect(res.json().error.message).toMatch(message);
    }
  });

  it('warns when a key does not look like the provider\'s', async () => {
    const res = await add({ name: 'odd-key', provider: 'anthropic', api_key: 'not-an-anthropic-key-000' });
    expect(res.statusCode).toBe(201);
    expect(res.json().warnings[0]).toMatch(/sk-ant-/);
  });

  it('refuses a duplicate name and changes of provider or kind', async () => {
    const a = (await add({ name: 'unique', provider: 'openai', api_key: OPENAI_KEY })).json();
    await add({ name: 'unique-2', provider: 'openai', api_key: OPENAI_KEY });
    expectError(await add({ name: 'unique', provider: 'openai', api_key: OPENAI_KEY }), 409, 'conflict');
    expectError(await s.api('PATCH', `/api/v1/accounts/${a.id}`, { name: 'unique-2' }), 409, 'conflict');
    expectError(await s.api('PATCH', `/api/v1/accounts/${a.id}`, { provider: 'gemini' }), 400, 'validation_failed');
    expectError(await s.api('PATCH', `/api/v1/accounts/${a.id}`, { kind: 'subscription' }), 400, 'validation_failed');
    const res = await s.api('PATCH', `/api/v1/accounts/${a.id}`, { state: 'disabled', models: ['gpt-4o', 'o*'], priority: -5 });
    expect(res.json()).toMatchObject({ state: 'disabled', models: ['gpt-4o', 'o*'], priority: -5 });
  });

  it('pages, filters and deletes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await add({ name: `page-${i}`, provider: 'gemini', api_key: 'AIzaSyPAGEKEY0123456789' })).json().id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.api('GET', `/api/v1/accounts?provider=gemini&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      seen.push(...res.json().items.map((a: { id: string; provider: string }) => (expect(a.provider).toBe('gemini'), a.id)));
      cursor = res.json().next_cursor;
    } while (cursor);
    expect(seen.slice(0, 3)).toEqual([...ids].reverse());
    expectError(await s.api('GET', '/api/v1/accounts?provider=azure'), 400, 'validation_failed');
    const del = await s.api('DELETE', `/api/v1/accounts/${ids[0]}`);
    expect(del.statusCode).toBe(200);
    noSecrets(del.body);
    expectError(await s.api('GET', `/api/v1/accounts/${ids[0]}`), 404, 'not_found');
    expectError(await s.api('DELETE', `/api/v1/accounts/${ids[0]}`), 404, 'not_found');
  });

  it('drops the account cache on every change', async () => {
    const cache = s.ctx.caches.register(new LookupCache<number>(ACCOUNTS_CACHE));
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('all', load);
    const a = (await add({ name: 'cache', provider: 'openai', api_key: OPENAI_KEY })).json();
    expect(await cache.get('all', load)).toBe(2);
    await s.api('PATCH', `/api/v1/accounts/${a.id}`, { weight: 9 });
    expect(await cache.get('all', load)).toBe(3);
    await s.api('DELETE', `/api/v1/accounts/${a.id}`);
    expect(await cache.get('all', load)).toBe(4);
  });
});
