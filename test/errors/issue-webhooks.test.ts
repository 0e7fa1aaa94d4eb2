/**
 * issue.new, issue.regressed and issue.spike reach a real local HTTP receiver through the team's webhook, each with
 * the issue (id, title, culprit, level, project, counts, link) and the event that triggered it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH_JOB } from '../../control-plane/webhooks/dispatcher.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { expectErrorCode, makeTeam } from '../api/access-fixtures.ts';
import { startReceiver, type Receiver } from '../api/webhook-receiver.ts';
import { createTeamProject, exceptionEvent, issueOfEvent, storeAll, type Project } from './support/errors-fixtures.ts';

let s: TestServer;
let rx: Receiver;
let p: Project;

beforeAll(async () => {
  // The receiver runs on this machine, so private targets are allowed explicitly.
  s = await startTestServer({ env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
  // Deliveries happen only when the test asks (runNow).
  await s.scheduler.stop();
  rx = await startReceiver();
  await makeTeam(s, 'alerts');
  p = await createTeamProject(s, 'alerts', { name: 'Storefront', spike_threshold: 3 });
  const hook = await s.api('POST', '/api/v1/webhooks', { url: `${rx.url}/issues`, events: ['issue.new', 'issue.regressed', 'issue.spike'] }, { 'x-svc-team': 'alerts' });
  expect(hook.statusCode, hook.body).toBe(201);
});
afterAll(async () => {
  await s?.close();
  await rx?.close();
});

interface Delivery {
  kind: string;
  team: string;
  data: Record<string, unknown> & { project: { id: number; name: string; slug: string } };
}

/** Runs the dispatcher and returns the deliveries of `kind` received so far. */
async function received(kind: string): Promise<Delivery[]> {
  await s.scheduler.runNow(DISPATCH_JOB);
  return rx.requests.map((r) => JSON.parse(r.body) as Delivery).filter((d) => d.kind === kind);
}

const boom = () => exceptionEvent('TypeError', 'cart is null', { file: 'src/cart.js', fn: 'total' }, { user: { id: `u${Math.random()}` } });

describe('issue webhooks', () => {
  it('delivers issue.new, issue.regressed and issue.spike with the issue and the triggering event', async () => {
    const [first] = await storeAll(s, p, [boom()]);
    const issueId = await issueOfEvent(s, p.id, first);
    const [created] = await received('issue.new');
    expect(created.team).toBe(p.team);
    expect(created.data).toEqual({
      issue_id: issueId, title: 'TypeError: cart is null', culprit: expect.stringContaining('total'), level: 'error', state: 'unresolved',
      project: { id: p.id, name: 'Storefront', slug: 'storefront' }, count: 1, people: 1,
      url: `${s.ctx.config.publicUrl}/api/v1/issues/${issueId}`, event_id: first,
    });
    const link = new URL(created.data.url as string);
    expect((await s.api('GET', link.pathname)).json().id).toBe(issueId);

    expect((await s.api('PATCH', `/api/v1/issues/${issueId}`, { state: 'resolved' })).statusCode).toBe(200);
    const [again] = await storeAll(s, p, [boom()]);
    const [regressed] = await received('issue.regressed');
    expect(regressed.data).toMatchObject({ issue_id: issueId, event_id: again, state: 'unresolved', count: 2, people: 2, project: { id: p.id } });

    // Two more this hour: 4 events > the threshold of 3.
    await storeAll(s, p, [boom()]);
    const pushed = await storeAll(s, p, [boom(), boom()]);
    const spikes = await received('issue.spike');
    expect(spikes).toHaveLength(1);
    expect(spikes[0].data).toMatchObject({ issue_id: issueId, title: 'TypeError: cart is null', threshold: 3, project: { id: p.id, slug: 'storefront' } });
    expect(spikes[0].data.hour_count).toBeGreaterThan(3);
    // The event that took the hour past the threshold (the two may be written in one batch or two).
    expect(pushed).toContain(spikes[0].data.event_id);

    // Once per hour: more events do not deliver another spike.
    await storeAll(s, p, [boom()]);
    expect(await received('issue.spike')).toHaveLength(1);
    expect(await received('issue.new')).toHaveLength(1);
    for (const r of rx.requests) expect(r.headers['x-svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('refuses an issue webhook whose URL is not http(s)', async () => {
    for (const url of ['ftp://hooks.example.com/issues', 'mailto:ops@example.com', 'hooks.example.com/issues']) {
      expectErrorCode(await s.api('POST', '/api/v1/webhooks', { url, events: ['issue.new'] }, { 'x-svc-team': 'alerts' }), 400, 'invalid_webhook_url');
    }
  });
});
