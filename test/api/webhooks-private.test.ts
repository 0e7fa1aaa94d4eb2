/**
 * Private webhook targets (docs/webhooks.md#private-addresses): refused on a default configuration for a team admin
 * (not an administrator of the instance) in every spelling, at creation, at test time and when connecting (names
 * that resolve to private addresses, DNS rebinding), redirects never followed; all allowed with the opt-in. There is
 * no DNS here: the dispatcher's resolver is injected, and a server on 127.0.0.2, exempted from the check, stands in
 * for a receiver on the internet.
 */
import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids.ts';
import type { Resolver } from '../../core/net/guarded-agent.ts';
import { emitEvent } from '../../core/outbox.ts';
import { seal } from '../../core/secret-box.ts';
import { DISPATCH_JOB, WebhookDispatcher } from '../../control-plane/webhooks/dispatcher.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam, makeUser } from './access-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

let rx: Receiver;
let port: number;
/** Answers every POST with a redirect to the loopback receiver. */
let redirector: Server;
let redirectorPort: number;
const redirected: string[] = [];

const resolve: Resolver = (host, _opts, cb) => {
  const table: Record<string, string> = { 'loopback.example': '127.0.0.1', 'public.example': '127.0.0.2' };
  const address = table[host];
  if (!address) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  cb(null, [{ address, family: 4 } satisfies LookupAddress]);
};
const guard = { resolve, exempt: (a: string) => a === '127.0.0.2' };

beforeAll(async () => {
  rx = await startReceiver();
  port = Number(new URL(rx.url).port);
  redirector = createServer((req, res) => {
    redirected.push(req.url ?? '');
    req.resume().on('end', () => res.writeHead(307, { location: `${rx.url}/secret` }).end());
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.2', r));
  redirectorPort = (redirector.address() as { port: number }).port;
});
afterAll(async () => {
  await rx?.close();
  await new Promise<void>((r) => (redirector ? redirector.close(() => r()) : r()));
});

/** The URLs of a loopback or internal target, in every spelling, that a default instance refuses. */
const privateUrls = (p: number) => [
  `http://127.0.0.1:${p}/a`, `http://[::1]:${p}/b`, `http://[::ffff:127.0.0.1]:${p}/c`, 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/d',
  `http://2130706433:${p}/e`, `http://0177.0.0.1:${p}/f`, `http://0x7f000001:${p}/g`, `http://0x7f.1:${p}/h`, `http://127.1:${p}/i`, `http://localhost:${p}/j`,
  'http://api.localhost/k', 'http://0.0.0.0/l', 'http://192.168.0.10/m', 'http://172.20.0.1/n', 'http://100.64.0.1/o', 'http://[fd00::1]/p', 'http://[fe80::1]/q',
  'http://[::ffff:7f00:1]/r', 'http://[64:ff9b::a9fe:a9fe]/s', 'http://[2002:7f00:1::]/t', 'https://[::]/u',
];

async function dispatchWith(s: TestServer): Promise<void> {
  const d = new WebhookDispatcher(s.ctx, { guard });
  try {
    await d.runOnce();
  } finally {
    await d.stop();
  }
}

async function lastAttempt(s: TestServer, hookId: string) {
  const [d] = (await s.api('GET', `/api/v1/webhooks/${hookId}/deliveries`)).json().items;
  return d.attempts.at(-1) as { status: number | null; error: string | null };
}

describe('private webhook targets on a default configuration', () => {
  let s: TestServer;
  let team: string;
  let admin: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer();
    // Deliveries run only when a test asks, through a dispatcher with the injected resolver.
    await s.scheduler.stop();
    team = await makeTeam(s, 'strict');
    admin = { 'x-svc-team': 'strict', ...(await makeUser(s, 'strict-admin', { [team]: 'admin' })).headers };
  });
  afterAll(async () => s?.close());

  const create = (url: string) => s.api('POST', '/api/v1/webhooks', { url }, admin);

  it('is off without the setting', () => {
    expect(s.ctx.config.allowPrivateWebhooks).toBe(false);
  });

  it('refuses a team admin every spelling of a private host at creation, naming the setting', async () => {
    for (const url of privateUrls(port)) {
      const res = await create(url);
      expectErrorCode(res, 400, 'private_target_refused');
      expect(res.json().error.message, url).toContain('SVC_ALLOW_PRIVATE_WEBHOOKS');
      expect(res.json().error.details).toMatchObject({ field: 'url' });
    }
    const ok = await create('https://93.184.216.34/hook');
    expect(ok.statusCode, ok.body).toBe(201);
    // Not kept: there is no internet to deliver to.
    await s.api('DELETE', `/api/v1/webhooks/${ok.json().id}`);
    expect(rx.requests).toEqual([]);
  });

  it('refuses at delivery a name that resolves to loopback, without reaching the receiver', async () => {
    const hook = await create(`http://loopback.example:${port}/named`);
    expect(hook.statusCode, hook.body).toBe(201);
    expect((await s.api('POST', `/api/v1/webhooks/${hook.json().id}/test`, undefined, admin)).statusCode).toBe(202);
    await dispatchWith(s);
    const attempt = await lastAttempt(s, hook.json().id);
    expect(attempt.status).toBeNull();
    expect(attempt.error).toContain('loopback.example resolves to 127.0.0.1, a private address, which this instance does not allow (SVC_ALLOW_PRIVATE_WEBHOOKS)');
    expect(rx.requests.filter((r) => r.path === '/named')).toEqual([]);
    await s.api('DELETE', `/api/v1/webhooks/${hook.json().id}`);
  });

  it('does not follow a redirect from a public receiver to a private address', async () => {
    const hook = await create(`http://public.example:${redirectorPort}/hop`);
    expect(hook.statusCode, hook.body).toBe(201);
    expect((await s.api('POST', `/api/v1/webhooks/${hook.json().id}/test`, undefined, admin)).statusCode).toBe(202);
    await dispatchWith(s);
    expect(await lastAttempt(s, hook.json().id)).toMatchObject({ status: 307, error: expect.stringContaining('redirects are not followed') });
    expect(redirected).toContain('/hop');
    expect(rx.requests.filter((r) => r.path === '/secret')).toEqual([]);
    await s.api('DELETE', `/api/v1/webhooks/${hook.json().id}`);
  });

  it('refuses a private URL stored before the instance stopped allowing it: at test time, and at delivery without connecting', async () => {
    const id = newId('wh_');
    await s.db.query('INSERT INTO webhooks (id, team_id, url, events, secret_sealed) VALUES ($1, $2, $3, $4, $5)', [id, team, `${rx.url}/late`, ['*'], seal(s.ctx.secretKey, 'whsec_x')]);
    expectErrorCode(await s.api('POST', `/api/v1/webhooks/${id}/test`, undefined, admin), 400, 'private_target_refused');
    await s.db.tx((q) => emitEvent(q, team, 'issue.new', { issue: 'iss_1', title: 'late' }));
    await s.scheduler.runNow(DISPATCH_JOB);
    const attempt = await lastAttempt(s, id);
    expect(attempt).toMatchObject({ status: null, error: expect.stringContaining('127.0.0.1 is a private address') });
    expect(rx.requests.filter((r) => r.path === '/late')).toEqual([]);
  });
});

describe('private webhook targets with SVC_ALLOW_PRIVATE_WEBHOOKS=true', () => {
  let s: TestServer;
  let admin: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
    await s.scheduler.stop();
    const team = await makeTeam(s, 'relaxed');
    admin = { 'x-svc-team': 'relaxed', ...(await makeUser(s, 'relaxed-admin', { [team]: 'admin' })).headers };
  });
  afterAll(async () => s?.close());

  it('accepts every spelling, and delivers to loopback spellings and names that resolve to loopback', async () => {
    const ids = new Map<string, string>();
    for (const url of [...privateUrls(port), `http://loopback.example:${port}/named`]) {
      const res = await s.api('POST', '/api/v1/webhooks', { url, events: ['issue.new'] }, admin);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
      ids.set(url, res.json().id);
    }
    // The IPv4 spellings of 127.0.0.1 and the resolved name reach the receiver (it listens on 127.0.0.1 only).
    const delivered = ['a', 'e', 'f', 'g', 'h', 'i', 'named'];
    for (const [url, id] of ids) if (delivered.includes(new URL(url).pathname.slice(1))) expect((await s.api('POST', `/api/v1/webhooks/${id}/test`, undefined, admin)).statusCode).toBe(202);
    await dispatchWith(s);
    expect(rx.requests.map((r) => r.path.slice(1)).filter((p) => delivered.includes(p)).sort()).toEqual([...delivered].sort());
  });
});
