/**
 * svc users, svc teams members, svc webhooks and the stack trace of svc errors issue end to end: the real CLI as a
 * child process against a listening server, with a webhook receiver on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/test-server.ts';
import { startReceiver, type Receiver } from '../api/webhook-receiver.ts';
import { createTeamProject, issueOfEvent, storeAll, waitFor } from '../errors/support/errors-fixtures.ts';
import { runSvc } from './run-svc.ts';

let s: TestServer;
let receiver: Receiver;
let admin: Record<string, string>;

beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer({ listen: true, env: { SVC_ALLOW_PRIVATE_WEBHOOKS: 'true' } }), startReceiver()]);
  admin = { HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent', SVC_URL: s.url, SVC_TOKEN: ADMIN_TOKEN };
  expect((await s.api('POST', '/api/v1/teams', { name: 'shop' })).statusCode).toBe(201);
});
afterAll(async () => {
  await s?.close();
  await receiver?.close();
});

const svc = (args: string[], input?: string) => runSvc(args, admin, input);
const header = (out: string) => out.split('\n')[0];

describe('svc users and team members', () => {
  it('creates users from a piped password, lists them, and gives them a team role', async () => {
    const made = await svc(['users', 'create', 'alice', '--email', 'alice@example.com', '--password-stdin'], 'a long enough password\n');
    expect(made.stderr).toBe('');
    expect(made.stdout).toMatch(/^Created user alice \(\w+\)\. Give them a team with "svc teams add-member TEAM alice"\.\n$/);
    const json = JSON.parse((await svc(['users', 'create', 'root2', '--superuser', '--password-stdin', '--json'], 'another long password\n')).stdout);
    expect(json).toMatchObject({ username: 'root2', is_superuser: true });
    const short = await svc(['users', 'create', 'bob', '--password-stdin'], 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('(code validation_failed, HTTP 400)');
    const noTty = await svc(['users', 'create', 'carl']);
    expect(noTty).toMatchObject({ code: 2, stdout: '' });
    expect(noTty.stderr).toContain('pipe it with --password-stdin');

    const list = await svc(['users', 'list']);
    expect(header(list.stdout)).toMatch(/^ID\s+USERNAME\s+EMAIL\s+SUPERUSER\s+CREATED$/);
    expect(list.stdout).toMatch(/^\w+\s+alice\s+alice@example\.com\s+no\s+\S+Z$/m);
    expect(list.stdout).toMatch(/^\w+\s+root2\s+-\s+yes\s+\S+Z$/m);
    expect(JSON.parse((await svc(['users', 'list', '--json'])).stdout).items.map((u: { username: string }) => u.username)).toEqual(['alice', 'root2']);

    expect((await svc(['teams', 'add-member', 'shop', 'alice', '--role', 'admin'])).code).toBe(0);
    const members = JSON.parse((await svc(['teams', 'members', 'shop', '--json'])).stdout);
    expect(members.items).toEqual([expect.objectContaining({ username: 'alice', role: 'admin' })]);
    expect((await svc(['teams', 'remove-member', 'shop', 'alice', '--json'])).code).toBe(0);
  });
});

describe('svc webhooks', () => {
  it('creates a webhook (secret once), lists, shows, tests, lists deliveries and deletes it', async () => {
    const made = await svc(['webhooks', 'create', '--team', 'shop', '--url', `${receiver.url}/hook`, '--events', 'issue.new,webhook.test']);
    expect(made.stderr).toContain('shown this once');
    const id = /^id:\s+(\S+)$/m.exec(made.stdout)?.[1] as string;
    expect(made.stdout).toMatch(/^secret:\s+\S{20,}$/m);
    expect(made.stdout).toMatch(/^events:\s+issue\.new, webhook\.test$/m);

    const list = await svc(['webhooks', 'list', '--team', 'shop']);
    expect(header(list.stdout)).toMatch(/^ID\s+TEAM\s+URL\s+EVENTS\s+CREATED$/);
    expect(list.stdout).toContain(`${receiver.url}/hook`);
    expect(list.stdout).not.toMatch(/secret/i);
    expect(JSON.parse((await svc(['webhooks', 'show', id, '--json'])).stdout)).toMatchObject({ id, url: `${receiver.url}/hook` });

    const test = await svc(['webhooks', 'test', id]);
    expect(test.stdout).toMatch(/^Queued webhook\.test event evt_\w+ for webhook \w+; see it with "svc webhooks deliveries \w+"\.\n$/);
    await waitFor(async () => receiver.requests.length > 0, 20_000);
    const deliveries = await waitFor(async () => {
      const r = JSON.parse((await svc(['webhooks', 'deliveries', id, '--json'])).stdout) as { items: { state: string }[] };
      return r.items[0]?.state === 'delivered' ? r : undefined;
    }, 20_000);
    expect(deliveries.items).toEqual([expect.objectContaining({ kind: 'webhook.test', state: 'delivered', attempt_count: 1 })]);
    const table = await svc(['webhooks', 'deliveries', id]);
    expect(header(table.stdout)).toMatch(/^ID\s+EVENT\s+STATE\s+ATTEMPTS\s+LAST ANSWER\s+NEXT TRY\s+DELIVERED\s+CREATED$/);
    expect(table.stdout).toMatch(/webhook\.test\s+delivered\s+1\s+HTTP 200\s+-\s+\S+Z/);

    expect((await svc(['webhooks', 'delete', id])).stdout).toBe(`Webhook ${id} deleted.\n`);
    const gone = await svc(['webhooks', 'show', id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/HTTP 404\)\n$/);
    const noTeam = await svc(['webhooks', 'create', '--url', 'https://x.example']);
    expect(noTeam).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('svc errors issue', () => {
  it("shows the latest event's stack trace, most recent call first, with in-app frames marked", async () => {
    const p = await createTeamProject(s, 'shop', { name: 'Web shop' });
    const frames = [
      { filename: 'node:internal/process/task_queues', function: 'process.processTicksAndRejections', lineno: 95, colno: 5, in_app: false },
      { filename: '/app/src/routes/checkout.js', function: 'handleCheckout', lineno: 42, colno: 13, in_app: true },
      { filename: '/app/src/cart.js', function: 'totalOf', lineno: 7, colno: 21, in_app: true },
    ];
    const [ev] = await storeAll(s, p, [{
      event_id: 'a'.repeat(32), level: 'error', platform: 'node', release: 'shop@1.4.0', environment: 'production',
      exception: { values: [
        { type: 'RangeError', value: 'price out of range', stacktrace: { frames: [{ filename: '/app/src/price.js', function: 'parsePrice', lineno: 3, in_app: true }] } },
        { type: 'TypeError', value: "Cannot read properties of undefined (reading 'qty')", stacktrace: { frames } },
      ] },
    }]);
    const issue = await issueOfEvent(s, p.id, ev);
    const r = await svc(['errors', 'issue', issue]);
    expect(r.stderr).toBe('');
    const trace = r.stdout.slice(r.stdout.indexOf('\nLatest event'));
    expect(trace).toBe([
      `\nLatest event ${'a'.repeat(32)} at ${/at (\S+Z) \(/.exec(trace)?.[1]} (release shop@1.4.0, production):`,
      "TypeError: Cannot read properties of undefined (reading 'qty')",
      '  APP  FUNCTION                           FILE:LINE',
      '  *    totalOf                            /app/src/cart.js:7:21',
      '  *    handleCheckout                     /app/src/routes/checkout.js:42:13',
      '       process.processTicksAndRejections  node:internal/process/task_queues:95:5',
      'Caused by RangeError: price out of range',
      '  APP  FUNCTION    FILE:LINE',
      '  *    parsePrice  /app/src/price.js:3',
      '(most recent call first; * marks frames of the application)',
      '',
    ].join('\n'));
    const json = JSON.parse((await svc(['errors', 'issue', issue, '--json'])).stdout);
    expect(json).toMatchObject({ id: issue, latest_event: { event_id: 'a'.repeat(32), data: { exception: { values: [{ type: 'RangeError' }, { type: 'TypeError' }] } } } });
  });
});
