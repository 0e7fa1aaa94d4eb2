/**
 * The MCP server through the SDK's own client (Client + StreamableHTTPClientTransport) against a listening server:
 * every tool is listed with input and output schemas, the gateway tools act through the same REST operations with
 * the caller's token, and scope, role and superuser refusals come back as tool errors with the REST codes. The SDK
 * client also checks each structuredContent against the tool's output schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';

let s: TestServer;
const clients: Client[] = [];

async function connect(authorization: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization } } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

interface ToolAnswer { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text: string }[] }
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as ToolAnswer;
/** A refusal's code, from the text `code: message` and the error object in the second text. */
function refusal(a: ToolAnswer) {
  const error = a.content[1] ? (JSON.parse(a.content[1].text) as { error: { code: string; message: string } }).error : undefined;
  expect(a.content[0].text).toBe(`${error?.code}: ${error?.message}`);
  return { isError: a.isError, code: error?.code };
}

let admin: Client;
let writer: Client;
let reader: Client;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  const red = await makeTeam(s, 'red');
  await makeTeam(s, 'blue');
  admin = await connect(`Bearer ${ADMIN_TOKEN}`);
  writer = await connect((await makeUser(s, 'mcp-writer', { [red]: 'member' }, 'write')).headers.authorization);
  reader = await connect((await makeUser(s, 'mcp-reader', { [red]: 'member' }, 'read')).headers.authorization);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.close();
});

const GATEWAY = ['list_keys', 'create_key', 'update_key', 'revoke_key', 'key_quota', 'usage', 'compression_report', 'list_accounts', 'show_account',
  'refresh_account_quota', 'list_aliases', 'set_alias', 'delete_alias', 'list_calls', 'show_call', 'list_prices', 'set_price', 'delete_price'];
const EARLIER = ['search', 'list_teams', 'list_tokens', 'list_trust_rules', 'create_trust_rule', 'delete_trust_rule', 'list_trust_exchanges', 'list_notifications', 'list_webhooks', 'list_projects', 'list_issues', 'update_issue', 'errors_stats'];

describe('MCP through the SDK client', () => {
  it('refuses to connect without a valid token', async () => {
    await expect(connect('')).rejects.toThrow(/401|unauthenticated/i);
    await expect(connect('Bearer tk_nope')).rejects.toThrow(/401|invalid_token/i);
  });

  it('lists every tool with input and output schemas and honest hints', async () => {
    expect(admin.getServerVersion()).toMatchObject({ name: 'svc' });
    const { tools } = await admin.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...GATEWAY, ...EARLIER].sort());
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description, t.name).toMatch(/\w/);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_keys')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('revoke_key')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('create_key')?.inputSchema.required).toEqual(['team', 'name']);
  });

  it('creates, lists, changes, reads the quota of and revokes a key, as REST would', async () => {
    const created = await call(writer, 'create_key', { team: 'red', name: 'ci bot', limits: { tokens_per_month: 1000 }, models: ['gpt-4o-mini'] });
    expect(created.isError).toBeUndefined();
    const key = created.structuredContent as { id: string; key: string; limits: unknown };
    expect(key.key).toMatch(/^sk-svc-/);
    expect(key.limits).toEqual({ tokens_per_month: 1000 });
    expect(JSON.parse(created.content[0].text)).toEqual(created.structuredContent);

    const listed = await call(reader, 'list_keys', { team: 'red' });
    const rest = await s.api('GET', '/api/v1/keys?team=red');
    expect(listed.structuredContent).toEqual(rest.json());
    expect((listed.structuredContent?.items as { id: string; key?: string }[]).map((k) => [k.id, k.key])).toEqual([[key.id, undefined]]);

    const changed = await call(writer, 'update_key', { key: key.id, limits: { dollars_per_month: 5 }, disabled: true });
    expect(changed.structuredContent).toMatchObject({ id: key.id, limits: { dollars_per_month: 5 }, disabled: true });

    const quota = await call(reader, 'key_quota', { key: key.id });
    expect(quota.structuredContent).toMatchObject({ key: { id: key.id, name: 'ci bot' }, limits: { dollars_per_month: 5, tokens_per_month: null }, spent: { tokens: 0, dollars: 0 }, remaining: { dollars: 5 } });

    const revoked = await call(writer, 'revoke_key', { key: key.id });
    expect(revoked.structuredContent).toMatchObject({ id: key.id, deleted_at: expect.any(String) });
    expect((await call(reader, 'list_keys', {})).structuredContent?.items).toEqual([]);
    expect(refusal(await call(reader, 'key_quota', { key: key.id }))).toEqual({ isError: true, code: 'not_found' });
  });

  it('refuses by scope, team and superuser exactly like the REST API', async () => {
    expect(refusal(await call(reader, 'create_key', { team: 'red', name: 'nope' }))).toEqual({ isError: true, code: 'insufficient_scope' });
    expect(refusal(await call(writer, 'create_key', { team: 'blue', name: 'nope' }))).toEqual({ isError: true, code: 'not_found' });
    expect(refusal(await call(writer, 'list_accounts'))).toEqual({ isError: true, code: 'superuser_required' });
    expect(refusal(await call(writer, 'set_alias', { name: 'fast', models: ['gpt-4o-mini'] }))).toEqual({ isError: true, code: 'superuser_required' });
    expect(refusal(await call(writer, 'set_price', { model: 'gpt-4o-mini', input_per_mtok: 1, output_per_mtok: 2 }))).toEqual({ isError: true, code: 'superuser_required' });
    const denied = await call(reader, 'update_issue', { issue: 'nope', state: 'resolved' });
    expect(denied.isError).toBe(true);
    expect(denied.content[0].text).toMatch(/^\w+: /);
  });

  it('checks arguments against the input schema before anything runs', async () => {
    const bad = await call(admin, 'list_keys', { limit: 0, colour: 'red' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/limit/);
    expect(bad.content[0].text).toMatch(/colour/);
    const missing = await call(admin, 'create_key', { team: 'red' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toMatch(/name/);
  });

  it('manages aliases and prices for superusers; everyone reads them', async () => {
    const set = await call(admin, 'set_alias', { name: 'fast', models: ['gpt-4o-mini', 'claude-haiku-4-5'] });
    expect(set.structuredContent).toMatchObject({ name: 'fast', models: ['gpt-4o-mini', 'claude-haiku-4-5'] });
    expect((await call(reader, 'list_aliases')).structuredContent?.items).toEqual([expect.objectContaining({ name: 'fast' })]);
    expect(refusal(await call(admin, 'set_alias', { name: 'faster', models: ['fast'] }))).toEqual({ isError: true, code: 'validation_failed' });
    expect((await call(admin, 'delete_alias', { name: 'fast' })).structuredContent).toMatchObject({ name: 'fast' });
    expect(refusal(await call(admin, 'delete_alias', { name: 'fast' }))).toEqual({ isError: true, code: 'not_found' });

    const price = await call(admin, 'set_price', { model: 'my/model-1', input_per_mtok: 1.5, output_per_mtok: 6 });
    expect(price.structuredContent).toMatchObject({ model: 'my/model-1', override: { input_per_mtok: 1.5, output_per_mtok: 6 }, effective: { input_per_mtok: 1.5 } });
    const one = await call(reader, 'list_prices', { model: 'my/model-1' });
    expect(one.structuredContent?.items).toEqual([expect.objectContaining({ model: 'my/model-1', override: expect.objectContaining({ cache_read_per_mtok: 1.5 }) })]);
    expect(((await call(reader, 'list_prices', { limit: 2 })).structuredContent?.next_cursor)).toEqual(expect.any(String));
    expect((await call(admin, 'delete_price', { model: 'my/model-1' })).structuredContent).toMatchObject({ model: 'my/model-1', override: null });
  });

  it('reads usage, kept calls and accounts with their quota windows', async () => {
    const usage = await call(reader, 'usage', { days: 3, group_by: ['model', 'key'] });
    expect(usage.structuredContent).toMatchObject({ days: 3, group_by: ['model', 'key'], totals: { calls: 0 }, groups: [] });
    expect((usage.structuredContent?.series as unknown[]).length).toBe(3);
    expect(refusal(await call(reader, 'usage', { days: 3, interval: 'hour', team: 'blue' }))).toEqual({ isError: true, code: 'not_found' });
    expect((await call(reader, 'compression_report', { days: 7, group_by: 'key' })).structuredContent).toEqual({ days: 7, group_by: 'key', estimated: true, items: [] });
    expect((await call(reader, 'list_calls', { team: 'red' })).structuredContent).toEqual({ items: [], next_cursor: null });
    expect(refusal(await call(reader, 'show_call', { call: 'nope' }))).toEqual({ isError: true, code: 'not_found' });

    const account = await s.api('POST', '/api/v1/accounts', { name: 'local', provider: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-local-0123456789', models: ['local-model'] });
    expect(account.statusCode, account.body).toBe(201);
    const id = account.json().id as string;
    expect((await call(admin, 'list_accounts', { provider: 'openai-compatible' })).structuredContent?.items).toEqual([expect.objectContaining({ id, has_secret: true })]);
    const shown = await call(admin, 'show_account', { account: id });
    expect(shown.structuredContent).toMatchObject({ id, quota: { windows: [] }, pauses: [], cooldown: null });
    expect(refusal(await call(admin, 'refresh_account_quota', { account: id }))).toEqual({ isError: true, code: 'validation_failed' });
  });
});
