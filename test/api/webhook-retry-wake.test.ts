import { afterAll, beforeAll, expect, it } from 'vitest';
import { FALLBACK_POLL_MS, WebhookDispatcher } from '../../control-plane/webhooks/dispatcher.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { makeTeam } from './access-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

let s: TestServer;
let rx: Receiver;

beforeAll(async () => {
  s = await startTestServer({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
  // Only the dispatchers of this test run passes: no scheduler job, so no fallback poll either.
  await s.scheduler.stop();
  rx = await startReceiver();
  await makeTeam(s, 'wake');
});
afterAll(async () => {
  await s?.close();
  await rx?.close();
});

const H = { 'x-svc-team': 'wake' };

async function deliveryOf(hook: string): Promise<{ state: string; attempt_count: number }> {
  return (await s.api('GET', `/api/v1/webhooks/${hook}/deliveries`)).json().items[0];
}

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  let v = await read();
  while (!done(v) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    v = await read();
  }
  return v;
}

it('tries a failed delivery again when its retry is due, without waiting for the fallback poll', async () => {
  const leader = new WebhookDispatcher(s.ctx, { retryDelayMs: () => 300 });
  await leader.listen(() => true);
  try {
    const hook = (await s.api('POST', '/api/v1/webhooks', { url: `${rx.url}/wake`, events: ['*'] }, H)).json();
    rx.script.push(500);
    // The test event is announced: the first attempt runs at once and fails; the second runs when its retry is due.
    const started = Date.now();
    await s.api('POST', `/api/v1/webhooks/${hook.id}/test`);
    const d = await waitFor(() => deliveryOf(hook.id), (v) => v?.state === 'delivered', FALLBACK_POLL_MS - 1000);
    expect(d).toMatchObject({ state: 'delivered', attempt_count: 2 });
    expect(Date.now() - started).toBeLessThan(FALLBACK_POLL_MS);
    expect(rx.requests.filter((r) => r.path === '/wake').map((r) => r.headers['x-svc-attempt'])).toEqual(['1', '2']);
  } finally {
    await leader.stop();
  }
});

it('leaves a due retry to the leader when this node is not the leader', async () => {
  const follower = new WebhookDispatcher(s.ctx, { retryDelayMs: () => 200 });
  try {
    const hook = (await s.api('POST', '/api/v1/webhooks', { url: `${rx.url}/follower`, events: ['webhook.test'] }, H)).json();
    rx.fallback = 500;
    await s.api('POST', `/api/v1/webhooks/${hook.id}/test`);
    await follower.runOnce();
    expect(await deliveryOf(hook.id)).toMatchObject({ state: 'pending', attempt_count: 1 });
    // Past the retry's time: a dispatcher that never became leader (listen not called) runs no pass of its own.
    await new Promise((r) => setTimeout(r, 600));
    expect(await deliveryOf(hook.id)).toMatchObject({ state: 'pending', attempt_count: 1 });
  } finally {
    rx.fallback = 200;
    await follower.stop();
  }
});
