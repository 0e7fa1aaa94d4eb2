/**
 * Request log lines against a running node: one `info` line per request (gateway, API, ingest, unmatched), with
 * the route, status, duration, ids and bytes, and never a secret or a body; SVC_REQUEST_LOG_SAMPLE=0 turns it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.ts';
import type { FakeUpstream } from '../fakes/fake-upstream.ts';
import { startFake } from '../fakes/start-fake.ts';
import { createProject, eventEnvelope, post, sentryAuth, type TestProject } from '../ingest/support/ingest-helpers.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';

const UPSTREAM_SECRET = 'sk-fake-openai-0123456789abcdef';
const BODY_MARKER = 'body-text-that-must-not-be-logged';

interface Line {
  msg: string;
  [field: string]: unknown;
}

async function node(env: Record<string, string>): Promise<{ s: TestServer; raw: string[]; requests: () => Line[] }> {
  const raw: string[] = [];
  const log = createLogger('info', { write: (chunk: string) => void raw.push(chunk) });
  const s = await startTestServer({ listen: true, log, env: { LOG_LEVEL: 'info', ...env } });
  const requests = () => raw.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'request');
  return { s, raw, requests };
}

describe('request log lines', () => {
  let n: Awaited<ReturnType<typeof node>>;
  let fake: FakeUpstream;
  let key: string;
  let keyId: string;
  let teamId: string;
  let project: TestProject;

  beforeAll(async () => {
    [n, fake] = await Promise.all([node({}), startFake('chat', ['gpt-4o-mini'])]);
    const team = await n.s.api('POST', '/api/v1/teams', { name: 'logs' });
    teamId = team.json().id as string;
    const k = await n.s.api('POST', '/api/v1/keys', { name: 'logs' }, { 'x-svc-team': 'logs' });
    ({ key, id: keyId } = k.json() as { key: string; id: string });
    await n.s.api('POST', '/api/v1/accounts', { name: 'openai', provider: 'openai', api_key: UPSTREAM_SECRET, base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] });
    project = await createProject(n.s);
  });
  afterAll(async () => {
    n?.s.app.server.closeAllConnections();
    await n?.s.close();
    await fake?.close();
  });

  it('writes one line per request, with what the request knew and no secret', async () => {
    n.raw.length = 0;
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: BODY_MARKER }] });
    const call = (stream: boolean) =>
      fetch(`${n.s.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: stream ? body.replace('{', '{"stream":true,') : body,
      }).then((r) => r.text());
    await call(false);
    await call(true);
    await fetch(`${n.s.url}/v1/models?key=${key}`).then((r) => r.text());
    await fetch(`${n.s.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-svc-wrong' }, body: '{}' }).then((r) => r.text());
    await n.s.api('GET', '/api/v1/teams');
    await post(n.s, `/api/${project.id}/envelope/?sentry_key=${project.publicKey}`, eventEnvelope({ message: BODY_MARKER }), sentryAuth(project.publicKey));
    await fetch(`${n.s.url}/no/such/path?token=${ADMIN_TOKEN}`).then((r) => r.text());

    // The answer's last byte is written before the line: wait for the last one.
    const deadline = Date.now() + 5000;
    while (n.requests().length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const lines = n.requests();
    expect(lines.map((l) => `${l.method} ${l.route} ${l.status}`)).toEqual([
      'POST /v1/chat/completions 200',
      'POST /v1/chat/completions 200',
      'GET /v1/models 200',
      'POST /v1/chat/completions 401',
      'GET /api/v1/teams 200',
      'POST /api/:project/envelope/ 200',
      'GET null 404',
    ]);
    const [json, stream, models, refused, teams, ingest] = lines;
    for (const l of [json, stream]) {
      expect(l).toMatchObject({ level: 30, key_id: keyId, team_id: teamId, model: 'gpt-4o-mini', upstream: 'openai' });
      expect(l.duration_ms).toEqual(expect.any(Number));
      expect(l.bytes_in).toBe(Buffer.byteLength(l === json ? body : body.replace('{', '{"stream":true,')));
      expect(l.bytes_out).toBeGreaterThan(100);
      expect(l.req_id).toEqual(expect.any(String));
    }
    expect(models.key_id).toBeUndefined();
    expect(refused.key_id).toBeUndefined();
    expect(teams.token_id).toBe('admin');
    expect(ingest.status).toBe(200);
    const all = n.raw.join('');
    for (const secret of [key, ADMIN_TOKEN, UPSTREAM_SECRET, project.publicKey, BODY_MARKER]) expect(all).not.toContain(secret);
  });

  it('writes the line of a request whose client hung up, with status 499, once', async () => {
    n.raw.length = 0;
    fake.script({ slow: { delayMs: 200, events: 20 } });
    const ac = new AbortController();
    const res = await fetch(`${n.s.url}/v1/chat/completions`, {
      method: 'POST', signal: ac.signal, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.body?.getReader().read();
    ac.abort();
    const deadline = Date.now() + 5000;
    while (n.requests().length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // The upstream stream would have lasted 4 s: by then any second report would have come.
    await new Promise((r) => setTimeout(r, 4500));
    const lines = n.requests();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ route: '/v1/chat/completions', status: 499, key_id: keyId });
    const metrics = await (await fetch(`${n.s.url}/metrics`)).text();
    expect(metrics).toContain('svc_http_requests_total{family="gateway",style="chat",status="499"} 1');
  });
});

it('writes no request line with SVC_REQUEST_LOG_SAMPLE=0', async () => {
  const n = await node({ SVC_REQUEST_LOG_SAMPLE: '0' });
  try {
    await n.s.api('GET', '/api/v1/teams');
    await fetch(`${n.s.url}/healthz`).then((r) => r.text());
    expect(n.requests()).toEqual([]);
  } finally {
    await n.s.close();
  }
});
