import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from './access-fixtures.ts';

let s: TestServer;
let red: string;
let viewer: { id: string; headers: Record<string, string> };

beforeAll(async () => {
  s = await startTestServer();
  red = await makeTeam(s, 'red');
  await makeTeam(s, 'blue');
  viewer = await makeUser(s, 'mcp-viewer', { [red]: 'viewer' }, 'read');
  const hook = await s.api('POST', '/api/v1/webhooks', { url: 'https://hooks.example/red', events: ['issue.new'] }, { 'x-svc-team': 'red' });
  expect(hook.statusCode, hook.body).toBe(201);
});
afterAll(async () => s?.close());

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
let nextId = 1;

async function rpc(method: string, params?: unknown, headers: Record<string, string> = {}) {
  const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }, { ...JSON_HEADERS, ...headers });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json() as { jsonrpc: string; id: number; result?: Record<string, unknown>; error?: { code: number; message: string } };
}

async function callTool(name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const answer = await rpc('tools/call', { name, arguments: args }, { 'mcp-protocol-version': '2025-11-25', ...headers });
  expect(answer.error).toBeUndefined();
  return answer.result as { content: { type: string; text: string }[]; structuredContent: Record<string, unknown>; isError?: boolean };
}

describe('POST /mcp', () => {
  it('refuses a call without credentials with 401 and the error object', async () => {
    const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }, { authorization: '', ...JSON_HEADERS });
    expectErrorCode(res, 401, 'unauthenticated');
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expectErrorCode(await s.api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: 'Bearer tk_nope', ...JSON_HEADERS }), 401, 'invalid_token');
  });

  it('negotiates the protocol version at initialize', async () => {
    const init = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    expect(init.id).toBeTypeOf('number');
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'svc', version: '0.1.0' } });
    expect((await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } })).result?.protocolVersion).toBe('2025-11-25');
    expect((await rpc('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } })).result?.protocolVersion).toBe('2024-11-05');
    expect((await rpc('initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'odd', version: '1' } })).result?.protocolVersion).toBe('2025-11-25');
    expect((await rpc('initialize', {})).error?.code).toBeTypeOf('number');
  });

  it('accepts notifications with 202 and no body, and answers ping', async () => {
    const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, JSON_HEADERS);
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    expect((await rpc('ping')).result).toEqual({});
  });

  it('refuses an unsupported MCP-Protocol-Version header with 400', async () => {
    const res = await s.api('POST', '/mcp', { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { ...JSON_HEADERS, 'mcp-protocol-version': '1900-01-01' });
    expectErrorCode(res, 400, 'unsupported_protocol_version');
    expect(res.json().error.details.supported).toContain('2025-06-18');
    expect((await rpc('tools/list', undefined, { 'mcp-protocol-version': '2025-06-18' })).result).toBeDefined();
  });

  it('answers protocol errors as JSON-RPC errors', async () => {
    expect((await rpc('resources/list')).error).toMatchObject({ code: -32601 });
    const unknown = (await rpc('tools/call', { name: 'no_such_tool', arguments: {} })).result as { isError: boolean; content: { text: string }[] };
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toMatch(/no_such_tool not found/);
    const noVersion = await s.api('POST', '/mcp', { id: 1, method: 'ping' }, JSON_HEADERS);
    expect(noVersion.json().error.code).toBe(-32700);
    expectErrorCode(await s.api('POST', '/mcp', '{"jsonrpc":', JSON_HEADERS), 400, 'invalid_json');
    const get = await s.api('GET', '/mcp');
    expectErrorCode(get, 405, 'method_not_allowed');
    expect(get.headers.allow).toContain('POST');
  });

  it('lists the tools with their input schemas', async () => {
    const tools = (await rpc('tools/list')).result?.tools as { name: string; description: string; inputSchema: { type: string }; annotations: { readOnlyHint: boolean } }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['search', 'list_teams', 'list_tokens', 'list_notifications', 'list_webhooks']));
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.description).toMatch(/\w/);
    }
    expect(tools.find((t) => t.name === 'search')?.annotations.readOnlyHint).toBe(true);
  });

  it('calls tools with the caller’s own permissions, through the same services as REST', async () => {
    const teams = await callTool('list_teams', {}, viewer.headers);
    expect(teams.isError).toBeUndefined();
    const rest = await s.api('GET', '/api/v1/teams', undefined, viewer.headers);
    expect(teams.structuredContent).toEqual(rest.json());
    expect(JSON.parse(teams.content[0].text)).toEqual(teams.structuredContent);
    expect((teams.structuredContent.items as { name: string }[]).map((t) => t.name)).toEqual(['red']);
    expect(((await callTool('list_teams', {})).structuredContent.items as unknown[]).length).toBe(2);

    const found = await callTool('search', { q: 'red' }, viewer.headers);
    expect(found.structuredContent.items).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'team', id: red, title: 'red' })]));
    expect((found.structuredContent.items as { type: string }[]).some((i) => i.type === 'webhook')).toBe(true);

    const hooks = await callTool('list_webhooks', { team: 'red', limit: 10 }, viewer.headers);
    expect(hooks.structuredContent.items).toEqual([expect.objectContaining({ url: 'https://hooks.example/red', events: ['issue.new'] })]);
    const tokens = await callTool('list_tokens', {}, viewer.headers);
    expect((tokens.structuredContent.items as { user: string }[]).every((t) => t.user === viewer.id)).toBe(true);
    expect(((await callTool('list_notifications', { kind: 'issue.new' }, viewer.headers)).structuredContent.items)).toEqual([]);
  });

  it('reports refusals and bad arguments as tool errors', async () => {
    const denied = await callTool('list_webhooks', { team: 'blue' }, viewer.headers);
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toBeUndefined();
    expect(denied.content[0].text).toMatch(/^not_found: /);
    expect(JSON.parse(denied.content[1].text)).toMatchObject({ error: { code: 'not_found', details: {} } });
    const bad = await callTool('list_teams', { limit: 0, colour: 'red' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/Too small: expected number to be >=1 at limit/);
    expect(bad.content[0].text).toMatch(/Unrecognized key: "colour"/);
    const cursor = await callTool('list_teams', { cursor: 'tampered' });
    expect(cursor.content[0].text).toMatch(/^invalid_cursor: /);
  });
});
