/** Search finds projects and issues the caller may see; MCP tools list projects and issues and change an issue. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam, makeUser } from '../api/access-fixtures.ts';
import { createTeamProject, exceptionEvent, issueOfEvent, storeAll, type Project } from './support/errors-fixtures.ts';

let s: TestServer;
let p: Project;
let issue: string;
let member: { id: string; headers: Record<string, string> };
let reader: { id: string; headers: Record<string, string> };
let outsider: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  s = await startTestServer();
  const team = await makeTeam(s, 'finders');
  const rival = await makeTeam(s, 'finders-rival');
  member = await makeUser(s, 'find-member', { [team]: 'member' });
  reader = await makeUser(s, 'find-reader', { [team]: 'member' }, 'read');
  outsider = await makeUser(s, 'find-outsider', { [rival]: 'owner' });
  p = await createTeamProject(s, 'finders', { name: 'Zebra Checkout' });
  const [ev] = await storeAll(s, p, [exceptionEvent('QuokkaError', 'the quokka escaped', { fn: 'feed' })]);
  issue = await issueOfEvent(s, p.id, ev);
});
afterAll(async () => s?.close());

const search = async (q: string, headers: Record<string, string> = {}) => {
  const res = await s.api('GET', `/api/v1/search?q=${encodeURIComponent(q)}`, undefined, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Array<{ type: string; id: string; title: string; url: string; team: string }>;
};

describe('search', () => {
  it('finds projects by name and issues by title, for members only', async () => {
    expect(await search('zebra', member.headers)).toEqual([{ type: 'project', id: String(p.id), title: 'Zebra Checkout', url: `${s.ctx.config.publicUrl}/api/v1/projects/${p.id}`, team: p.team }]);
    expect(await search('QUOKKA', member.headers)).toEqual([{ type: 'issue', id: issue, title: 'QuokkaError: the quokka escaped', url: `${s.ctx.config.publicUrl}/api/v1/issues/${issue}`, team: p.team }]);
    expect((await search(issue)).map((x) => x.type)).toEqual(['issue']);
    expect(await search('quokka', outsider.headers)).toEqual([]);
    expect(await search('zebra', outsider.headers)).toEqual([]);
    expect((await s.api('GET', '/api/v1/search?q=zebra&type=project,issue')).json().items).toHaveLength(1);
  });
});

const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
let rpcId = 1;

async function callTool(name: string, args: Record<string, unknown>, headers: Record<string, string>) {
  const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name, arguments: args } }, { ...MCP, ...headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as { structuredContent: Record<string, unknown> & { items?: Array<Record<string, unknown>> }; isError?: boolean; content: Array<{ text: string }> };
}

describe('MCP tools', () => {
  it('lists the tools with their read-only hints', async () => {
    const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: rpcId++, method: 'tools/list' }, { ...MCP, ...member.headers });
    const tools = res.json().result.tools as Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>;
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_projects')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('list_issues')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('update_issue')?.annotations?.readOnlyHint).toBe(false);
  });

  it('list_projects and list_issues answer what the REST lists answer', async () => {
    const projects = await callTool('list_projects', { team: 'finders' }, member.headers);
    expect(projects.structuredContent.items?.map((x) => x.id)).toEqual([p.id]);
    expect(projects.structuredContent.items?.[0].dsn).toBe(p.dsn);
    const issues = await callTool('list_issues', { project: p.id, state: 'unresolved', sort: 'count', q: 'quokka' }, reader.headers);
    expect(issues.structuredContent.items?.map((x) => x.id)).toEqual([issue]);
    const hidden = await callTool('list_issues', { project: p.id }, outsider.headers);
    expect(hidden.isError).toBe(true);
    expect(hidden.content[0].text).toContain('not_found');
    expect((await callTool('list_projects', {}, outsider.headers)).structuredContent.items).toEqual([]);
  });

  it('update_issue changes the state and takes the issue, with the same refusals as REST', async () => {
    const done = await callTool('update_issue', { issue, state: 'ignored', ignore_until_count: 10, assignee: 'me' }, member.headers);
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ id: issue, state: 'ignored', ignore_until_count: 10, assignee: member.id });
    const refused = await callTool('update_issue', { issue, state: 'resolved' }, reader.headers);
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain('insufficient_scope');
    const bad = await callTool('update_issue', { issue, state: 'ignored', ignore_until_count: 0 }, member.headers);
    expect(bad.content[0].text).toContain('invalid_ignore_count');
    const back = await callTool('update_issue', { issue, state: 'unresolved', assignee: 'nobody' }, member.headers);
    expect(back.structuredContent).toMatchObject({ state: 'unresolved', assignee: null });
    expect((await s.api('GET', `/api/v1/issues/${issue}`)).json()).toMatchObject({ state: 'unresolved', assignee: null });
  });
});
