import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { bearer, createTeam, createUser, setRole, tokenFor } from './identity-fixtures.ts';

let s: TestServer;
let alice: Record<string, string>;
let dave: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer();
  await createTeam(s, 'alpha');
  await createTeam(s, 'beta');
  await createUser(s, 'alice');
  await setRole(s, 'alpha', 'alice', 'member');
  await createUser(s, 'dave');
  await setRole(s, 'beta', 'dave', 'member');
  alice = bearer((await tokenFor(s, 'alice', 'write')).secret);
  dave = bearer((await tokenFor(s, 'dave', 'write')).secret);
  expect((await s.api('POST', '/api/v1/keys?team=alpha', { name: 'zebra-key' }, alice)).statusCode).toBe(201);
  expect((await s.api('POST', '/api/v1/accounts', { name: 'zebra-account', provider: 'openai', api_key: 'sk-zebra-0123456789abcdef' })).statusCode).toBe(201);
  expect((await s.api('PUT', '/api/v1/aliases/zebra', { models: ['gpt-5'] })).statusCode).toBe(201);
});
afterAll(async () => s?.close());

const find = async (q: string, headers?: Record<string, string>) => {
  const res = await s.api('GET', `/api/v1/search?q=${encodeURIComponent(q)}`, undefined, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as { type: string; id: string; title: string; url: string; team: string | null }[];
};

describe('search over gateway resources', () => {
  it('finds keys for their team, accounts for superusers and aliases for everyone', async () => {
    const admin = await find('zebra');
    expect(admin.map((i) => i.type).sort()).toEqual(['account', 'alias', 'key']);
    const key = admin.find((i) => i.type === 'key');
    expect(key?.url).toMatch(/\/api\/v1\/keys\/key_/);
    expect(admin.find((i) => i.type === 'alias')?.title).toBe('zebra → gpt-5');
    expect((await find('zebra', alice)).map((i) => i.type).sort()).toEqual(['alias', 'key']);
    expect((await find('zebra', dave)).map((i) => i.type)).toEqual(['alias']);
    expect((await find('gpt-5', dave)).map((i) => i.id)).toContain('zebra');
  });
});
