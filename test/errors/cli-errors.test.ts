/** `svc errors …` end to end: the real CLI as a child process against a listening server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { runSvc } from '../cli/run-svc.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { exceptionEvent, issueOfEvent, postStore, storeAll } from './support/errors-fixtures.ts';

let s: TestServer;
let member: { id: string; headers: Record<string, string> };
let deploy: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  const team = await makeTeam(s, 'cli-shop');
  member = await makeUser(s, 'cli-member', { [team]: 'member' });
  deploy = await makeUser(s, 'cli-ci', { [team]: 'member' }, 'deploy');
});
afterAll(async () => s?.close());

const tokenOf = (h: { headers: Record<string, string> }) => h.headers.authorization.replace('Bearer ', '');
const svc = (args: string[], token = ADMIN_TOKEN) => runSvc(args, { HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: token });

describe('svc errors', () => {
  let project: { id: number; dsn: string; public_key: string; slug: string };

  it('creates, lists and shows projects, and rotates a DSN', async () => {
    const created = await svc(['errors', 'projects', 'create', 'Web Shop', '--team', 'cli-shop', '--platform', 'javascript', '--events-per-minute', '120', '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    project = JSON.parse(created.stdout);
    expect(project).toMatchObject({ slug: 'web-shop', events_per_minute: 120 });

    const human = await svc(['errors', 'projects', 'list']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/ID\s+SLUG\s+NAME/);
    expect(human.stdout).toContain(project.dsn);
    const shown = await svc(['errors', 'projects', 'show', 'web-shop']);
    expect(shown.stdout).toMatch(/events per minute:\s+120/);

    const rotated = await svc(['errors', 'projects', 'rotate-key', 'web-shop', '--json']);
    expect(rotated.code).toBe(0);
    const key = JSON.parse(rotated.stdout);
    expect(key.revoked).toEqual([project.public_key]);
    expect((await postStore(s, project.id, project.public_key, exceptionEvent('Error', 'old'))).statusCode).toBe(403);
    project = { ...project, dsn: key.dsn, public_key: key.public_key };

    const missing = await svc(['errors', 'projects', 'show', 'no-such-project']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not_found');
  });

  it('lists issues and resolves, ignores and takes one', async () => {
    const [ev] = await storeAll(s, project, [exceptionEvent('TypeError', 'basket is empty', { fn: 'pay' })]);
    const issue = await issueOfEvent(s, project.id, ev);
    const listed = await svc(['errors', 'issues', 'list', 'web-shop', '--state', 'unresolved', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).items.map((i: { id: string }) => i.id)).toEqual([issue]);
    expect((await svc(['errors', 'issues', 'list', String(project.id)])).stdout).toContain('TypeError: basket is empty');

    const taken = await svc(['errors', 'issue', issue, '--resolve', '--assign-me', '--json'], tokenOf(member));
    expect(taken.code).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ id: issue, state: 'resolved', assignee: member.id });
    const ignored = await svc(['errors', 'issue', issue, '--ignore', '--ignore-count', '50'], tokenOf(member));
    expect(ignored.stdout).toMatch(/state:\s+ignored/);

    const resolved = await svc(['errors', 'issues', 'resolve', issue], tokenOf(member));
    expect(resolved.stdout).toBe(`Issue ${issue} is resolved, assigned to ${member.id}.\n`);
    const ignoredAgain = JSON.parse((await svc(['errors', 'issues', 'ignore', issue, '--count', '5', '--json'])).stdout);
    expect(ignoredAgain).toMatchObject({ state: 'ignored', ignore_until_count: 5 });
    const assignedByAdmin = await svc(['errors', 'issues', 'assign', issue]);
    expect(assignedByAdmin.code).toBe(1);
    expect(assignedByAdmin.stderr).toContain('assignee_needs_user');

    const refused = await svc(['errors', 'issue', issue, '--ignore', '--ignore-count', '0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_ignore_count');
    const usage = await svc(['errors', 'issue', issue, '--resolve', '--ignore']);
    expect(usage.code).toBe(2);
    expect((await svc(['errors', 'issues', 'list', 'web-shop', '--state', 'closed'])).stderr).toContain('invalid_issue_state');
  });

  it('registers releases with a deploy token, and lists them', async () => {
    const r = await svc(['errors', 'releases', 'create', 'web-shop', '1.4.2', '--ref', 'abc123', '--url', 'https://ci.example.com/7'], tokenOf(deploy));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Registered release 1.4.2');
    const bad = await svc(['errors', 'releases', 'create', 'web-shop', 'bad\tversion'], tokenOf(deploy));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invalid_release_version');
    const flags = await svc(['errors', 'releases', 'create', '--project', String(project.id), '--version', '1.4.3'], tokenOf(deploy));
    expect(flags.code).toBe(0);
    expect((await svc(['errors', 'releases', 'create', 'web-shop'], tokenOf(deploy))).code).toBe(2);
    const listed = JSON.parse((await svc(['errors', 'releases', 'list', 'web-shop', '--json'])).stdout);
    expect(listed.items).toEqual([expect.objectContaining({ version: '1.4.3', registered: true }), expect.objectContaining({ version: '1.4.2', ref: 'abc123', registered: true })]);
  });
});
