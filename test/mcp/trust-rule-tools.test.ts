/**
 * The trust-rule MCP tools through the SDK's own client against a listening server and a fake OIDC issuer: a team
 * admin creates a rule, members list it (the same answer as REST), a CI job's exchange is listed, and deleting the
 * rule ends its access tokens. Refusals by scope, role and for the admin token (no user behind it) are the REST ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { systemClock } from '../../core/clock.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { githubClaims, startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';

let s: TestServer;
let issuer: FakeIssuer;
const clients: Client[] = [];

async function connect(authorization: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization } } }));
  clients.push(client);
  return client;
}

interface ToolAnswer { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text: string }[] }
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as ToolAnswer;
const codeOf = (a: ToolAnswer) => (a.isError ? (JSON.parse(a.content[1].text) as { error: { code: string } }).error.code : 'ok');

let admin: Client;
let adaWrite: Client;
let adaRead: Client;
let member: Client;
let viewer: Client;

beforeAll(async () => {
  s = await startTestServer({ listen: true, env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true' } });
  issuer = await startFakeIssuer(systemClock);
  const shop = await makeTeam(s, 'shop');
  admin = await connect(`Bearer ${ADMIN_TOKEN}`);
  adaWrite = await connect((await makeUser(s, 'ada', { [shop]: 'admin' }, 'write')).headers.authorization);
  const adaReadToken = await s.api('POST', '/api/v1/tokens', { name: 'read', scope: 'read', user: 'ada' });
  adaRead = await connect(`Bearer ${adaReadToken.json().token as string}`);
  member = await connect((await makeUser(s, 'bob', { [shop]: 'member' }, 'write')).headers.authorization);
  viewer = await connect((await makeUser(s, 'vera', { [shop]: 'viewer' }, 'read')).headers.authorization);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.close();
  await issuer?.close();
});

describe('trust-rule MCP tools', () => {
  it('are listed with schemas and honest hints', async () => {
    const { tools } = await viewer.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_trust_rules')?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('list_trust_exchanges')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('create_trust_rule')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('delete_trust_rule')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('create_trust_rule')?.inputSchema.required).toEqual(['team', 'name', 'issuer', 'conditions']);
  });

  it('create, list, exchange, list exchanges and delete, as REST would', async () => {
    const args = { team: 'shop', name: 'deploy-main', issuer: issuer.url, conditions: { repository_owner_id: '9100', ref: 'refs/heads/*' }, ttl: '10m' };
    const created = await call(adaWrite, 'create_trust_rule', args);
    expect(created.isError, created.content[0].text).toBeUndefined();
    const rule = created.structuredContent as { id: string; created_by: string; scope: string; ttl: number; audience: string };
    expect(rule).toMatchObject({ name: 'deploy-main', scope: 'deploy', ttl: 600, audience: s.url, disabled: false });

    const listed = await call(viewer, 'list_trust_rules', { team: 'shop' });
    expect(listed.structuredContent).toEqual((await s.api('GET', '/api/v1/trust-rules?team=shop')).json());
    expect((listed.structuredContent?.items as { id: string }[]).map((r) => r.id)).toEqual([rule.id]);

    const res = await fetch(`${s.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token_type: 'urn:ietf:params:oauth:token-type:jwt', resource: 'shop', subject_token: await issuer.sign(githubClaims(s.url)) }),
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    const exchanges = await call(viewer, 'list_trust_exchanges', { rule: rule.id });
    expect(exchanges.structuredContent?.items).toEqual([expect.objectContaining({ rule: rule.id, subject: 'repo:acme/shop:environment:production', claims: { repository_owner_id: '9100', ref: 'refs/heads/main' } })]);

    // The exchanged token reaches MCP too, until its rule is deleted.
    const job = await connect(`Bearer ${access_token}`);
    expect(codeOf(await call(job, 'list_trust_rules'))).toBe('ok');
    expect(codeOf(await call(viewer, 'delete_trust_rule', { rule: rule.id }))).toBe('insufficient_scope');
    expect(codeOf(await call(member, 'delete_trust_rule', { rule: rule.id }))).toBe('forbidden');
    const deleted = await call(adaWrite, 'delete_trust_rule', { rule: rule.id });
    expect(deleted.structuredContent).toMatchObject({ id: rule.id });
    expect((await call(viewer, 'list_trust_rules')).structuredContent?.items).toEqual([]);
    expect(codeOf(await call(adaWrite, 'delete_trust_rule', { rule: rule.id }))).toBe('not_found');
    await expect(connect(`Bearer ${access_token}`)).rejects.toThrow(/401|token_revoked/);
  });

  it('refuses by scope, role, the admin token and unbound conditions like the REST API', async () => {
    const args = { team: 'shop', name: 'x', issuer: issuer.url, conditions: { repository_owner_id: '9100' } };
    expect(codeOf(await call(adaRead, 'create_trust_rule', args))).toBe('insufficient_scope');
    expect(codeOf(await call(member, 'create_trust_rule', args))).toBe('forbidden');
    expect(codeOf(await call(admin, 'create_trust_rule', args))).toBe('forbidden');
    expect(codeOf(await call(adaWrite, 'create_trust_rule', { ...args, conditions: { repository: 'acme/*' } }))).toBe('trust_rule_unbound');
    expect(codeOf(await call(adaWrite, 'create_trust_rule', { ...args, scope: 'read', ttl: '1h' }))).toBe('invalid_ttl');
    expect(codeOf(await call(viewer, 'list_trust_rules', { team: 'nope' }))).toBe('not_found');
    const bad = await call(adaWrite, 'create_trust_rule', { ...args, scope: 'write' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/scope/);
  });
});
