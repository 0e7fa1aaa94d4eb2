import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids.ts';
import { seal } from '../../core/secret-box.ts';
import { DISPATCH_JOB } from '../../control-plane/webhooks/dispatcher.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam } from './access-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx?.close());

describe('private webhook targets when the instance refuses them', () => {
  let s: TestServer;
  let team: string;
  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'false' } });
    await s.scheduler.stop();
    team = await makeTeam(s, 'strict');
  });
  afterAll(async () => s?.close());

  it('refuses private, loopback and link-local hosts at creation', async () => {
    for (const url of [`${rx.url}/x`, 'http://10.1.2.3/x', 'http://192.168.0.10/x', 'http://172.20.0.1/x', 'http://169.254.169.254/latest', 'http://[::1]:8080/x', 'http://[fd00::1]/x', 'http://[::ffff:127.0.0.1]/x', 'http://localhost:3000/x', 'http://api.localhost/x', 'http://0.0.0.0/x']) {
      const res = await s.api('POST', '/api/v1/webhooks', { url }, { 'x-svc-team': 'strict' });
      expectErrorCode(res, 400, 'webhook_private_address');
      expect(res.json().error.message).toContain('SVC_ALLOW_PRIVATE_WEBHOOKS');
    }
    const ok = await s.api('POST', '/api/v1/webhooks', { url: 'https://93.184.216.34/hook' }, { 'x-svc-team': 'strict' });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('refuses a private target again at delivery time, without connecting', async () => {
    // A webhook stored while private targets were still allowed.
    const id = newId('wh_');
    await s.db.query('INSERT INTO webhooks (id, team_id, url, events, secret_sealed) VALUES ($1, $2, $3, $4, $5)', [id, team, `${rx.url}/late`, ['*'], seal(s.ctx.secretKey, 'whsec_x')]);
    expect((await s.api('POST', `/api/v1/webhooks/${id}/test`)).statusCode).toBe(202);
    await s.scheduler.runNow(DISPATCH_JOB);
    const [d] = (await s.api('GET', `/api/v1/webhooks/${id}/deliveries`)).json().items;
    expect(d).toMatchObject({ state: 'pending', attempt_count: 1 });
    expect(d.attempts[0]).toMatchObject({ status: null, error: expect.stringContaining('private address') });
    expect(rx.requests.filter((r) => r.path === '/late')).toEqual([]);
  });
});

describe('the dispatcher in the background', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await makeTeam(s, 'live');
  });
  afterAll(async () => s?.close());

  it('delivers a test event without being asked, on the leader node', async () => {
    const hook = await s.api('POST', '/api/v1/webhooks', { url: `${rx.url}/live` }, { 'x-svc-team': 'live' });
    expect(hook.statusCode, hook.body).toBe(201);
    await s.api('POST', `/api/v1/webhooks/${hook.json().id}/test`);
    const deadline = Date.now() + 10_000;
    while (!rx.requests.some((r) => r.path === '/live') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(rx.requests.filter((r) => r.path === '/live')).toHaveLength(1);
    expect(s.scheduler.isLeader).toBe(true);
  });
});
