/**
 * svc trust-rules end to end: the real CLI as a child process against a listening server and a fake OIDC issuer.
 * A team admin creates rules (conditions as claim=pattern pairs or JSON), lists and shows them, a job exchanges its
 * token, the exchange is listed, and deleting the rule ends the access token at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createTeam, createUser, setRole, tokenFor } from '../api/identity-fixtures.ts';
import { githubClaims, startFakeIssuer, type FakeIssuer } from '../fakes/fake-oidc-issuer.ts';
import { runSvc } from './run-svc.ts';

let s: TestServer;
let issuer: FakeIssuer;
let env: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer({ listen: true, env: { SVC_ALLOW_PRIVATE_ISSUERS: 'true' } });
  issuer = await startFakeIssuer(systemClock);
  await createUser(s, 'ada');
  await createTeam(s, 'shop');
  await setRole(s, 'shop', 'ada', 'admin');
  env = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: (await tokenFor(s, 'ada', 'write')).secret };
});
afterAll(async () => {
  await s?.close();
  await issuer?.close();
});

const svc = (args: string[], extra: Record<string, string> = {}) => runSvc(args, { ...env, ...extra });
const header = (out: string) => out.split('\n')[0];

async function exchange(): Promise<Response> {
  return fetch(`${s.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      resource: 'shop', subject_token: await issuer.sign(githubClaims(s.url)),
    }),
  });
}

describe('svc trust-rules', () => {
  let ruleId: string;

  it('creates a rule from claim=pattern pairs and prints it', async () => {
    const made = await svc(['trust-rules', 'create', '--team', 'shop', '--name', 'deploy-main', '--issuer', issuer.url, '--conditions', 'repository_owner_id=9100, ref=refs/heads/*']);
    expect(made.code, made.stderr).toBe(0);
    ruleId = /^id:\s+(tr_\w+)$/m.exec(made.stdout)?.[1] as string;
    expect(ruleId).toBeTruthy();
    expect(made.stdout).toMatch(/^conditions:\s+ref=refs\/heads\/\* repository_owner_id=9100$/m);
    expect(made.stdout).toMatch(/^scope:\s+deploy$/m);
    expect(made.stdout).toMatch(/^ttl:\s+900 s$/m);
    expect(made.stdout).toMatch(new RegExp(`^audience:\\s+${s.url.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(made.stderr).toContain(`svc trust-rules exchanges --rule ${ruleId}`);
  });

  it('takes JSON conditions, --scope, --ttl and --audience, and prints JSON with --json', async () => {
    const r = await svc(['trust-rules', 'create', '--name', 'read-tags', '--issuer', issuer.url, '--conditions', '{"repository_id":"74001","ref":"refs/tags/v1,2"}', '--scope', 'read', '--ttl', '5m', '--audience', 'https://ci.example', '--json'], { SVC_TEAM: 'shop' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'read-tags', scope: 'read', ttl: 300, audience: 'https://ci.example', conditions: { repository_id: '74001', ref: 'refs/tags/v1,2' }, disabled: false });
  });

  it('passes on the refusal of a rule that binds no owner, and refuses bad options before calling', async () => {
    const unbound = await svc(['trust-rules', 'create', '--team', 'shop', '--name', 'any', '--issuer', issuer.url, '--conditions', 'repository=acme/shop']);
    expect(unbound.code).toBe(1);
    expect(unbound.stderr).toContain('(code trust_rule_unbound, HTTP 400)');
    const pairs = await svc(['trust-rules', 'create', '--team', 'shop', '--name', 'x', '--issuer', issuer.url, '--conditions', 'repository_owner_id']);
    expect(pairs).toMatchObject({ code: 2, stdout: '' });
    expect(pairs.stderr).toContain('claim=pattern pairs');
    const json = await svc(['trust-rules', 'create', '--team', 'shop', '--name', 'x', '--issuer', issuer.url, '--conditions', '{"a":']);
    expect(json.code).toBe(2);
    const scope = await svc(['trust-rules', 'create', '--team', 'shop', '--name', 'x', '--issuer', issuer.url, '--conditions', 'repository_id=1', '--scope', 'write']);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain('read or deploy');
    const noTeam = await svc(['trust-rules', 'create', '--name', 'x', '--issuer', issuer.url, '--conditions', 'repository_id=1']);
    expect(noTeam.code).toBe(2);
    expect(noTeam.stderr).toContain('--team');
  });

  it('lists and shows rules as tables and JSON', async () => {
    const list = await svc(['trust-rules', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(header(list.stdout)).toMatch(/^ID\s+TEAM\s+NAME\s+ISSUER\s+SCOPE\s+CONDITIONS\s+DISABLED$/);
    expect(list.stdout).toMatch(new RegExp(`^${ruleId}\\s+shop\\s+deploy-main\\s+\\S+\\s+deploy\\s+ref=refs/heads/\\*\\s+repository_owner_id=9100\\s+no$`, 'm'));
    const json = JSON.parse((await svc(['trust-rules', 'list', '--team', 'shop', '--json'])).stdout) as { items: { name: string }[]; next_cursor: null };
    expect(json.items.map((r) => r.name)).toEqual(['read-tags', 'deploy-main']);
    expect(json.next_cursor).toBeNull();
    const shown = await svc(['trust-rules', 'show', ruleId]);
    expect(shown.stdout).toMatch(/^name:\s+deploy-main$/m);
    expect(JSON.parse((await svc(['trust-rules', 'show', ruleId, '--json'])).stdout)).toMatchObject({ id: ruleId, issuer: issuer.url });
  });

  it('lists the exchanges, and deleting the rule ends its access tokens', async () => {
    expect((await svc(['trust-rules', 'exchanges'])).stdout).toBe('No exchanges yet.\n');
    const res = await exchange();
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };

    const table = await svc(['trust-rules', 'exchanges', '--team', 'shop']);
    expect(header(table.stdout)).toMatch(/^ID\s+RULE\s+SUBJECT\s+CLAIMS\s+EXPIRES\s+CREATED$/);
    expect(table.stdout).toMatch(new RegExp(`^tx_\\w+\\s+${ruleId}\\s+repo:acme/shop:environment:production\\s+ref=refs/heads/main repository_owner_id=9100\\s+\\S+Z\\s+\\S+Z$`, 'm'));
    const json = JSON.parse((await svc(['trust-rules', 'exchanges', '--rule', ruleId, '--limit', '1', '--json'])).stdout) as { items: { rule: string; token_id: string }[] };
    expect(json.items).toEqual([expect.objectContaining({ rule: ruleId, token_id: expect.stringMatching(/^tx_/) })]);

    // The exchanged token works until its rule is deleted.
    expect((await svc(['trust-rules', 'list'], { SVC_TOKEN: access_token })).code).toBe(0);
    const deleted = await svc(['trust-rules', 'delete', ruleId]);
    expect(deleted.stdout).toBe(`Deleted trust rule ${ruleId} (deploy-main); its access tokens no longer work.\n`);
    const after = await svc(['trust-rules', 'list'], { SVC_TOKEN: access_token });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('token_revoked');
    const gone = await svc(['trust-rules', 'show', ruleId]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/HTTP 404\)\n$/);
  });

  it('has --help on every command', async () => {
    for (const c of [[], ['create'], ['list'], ['show'], ['delete'], ['exchanges']]) {
      const r = await svc(['trust-rules', ...c, '--help']);
      expect(r.code, c.join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: svc trust-rules${c.length ? ` ${c[0]}` : ''} `));
    }
  });
});
