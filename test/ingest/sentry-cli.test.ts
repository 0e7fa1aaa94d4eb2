/**
 * sentry-cli (`send-event`, the real binary from the registry's per-platform package) as a client of a running
 * server: its message events arrive with their release, environment, tags and user, are formatted from their
 * arguments and group by their template; a custom fingerprint groups as sent.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, waitFor, type TestProject } from './support/ingest-helpers.ts';

const CLI = fileURLToPath(new URL('../../node_modules/.bin/sentry-cli', import.meta.url));
const run = promisify(execFile);

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  p = await createProject(s);
});
afterAll(async () => s?.close());

async function sendEvent(args: string[]): Promise<void> {
  await run(CLI, ['send-event', '--no-environ', ...args], { env: { ...process.env, SENTRY_DSN: p.dsn }, timeout: 60_000 });
}

interface IssueItem { id: string; title: string; count: number; level: string; type: string; first_release: string }

describe('sentry-cli send-event against our DSN', () => {
  it('sends message events that are formatted, grouped by template and carry their release', async () => {
    await sendEvent(['-m', 'Deploy of %s failed on %s', '-a', 'web', '-a', 'host-3', '-r', 'shop@4.0.0', '-E', 'production', '-t', 'stage:deploy', '-u', 'id:42']);
    await sendEvent(['-m', 'Deploy of %s failed on %s', '-a', 'api', '-a', 'host-9', '-r', 'shop@4.0.0', '-l', 'warning']);
    await sendEvent(['-m', 'Nightly backup done', '-l', 'info', '-f', 'backup', '-f', 'nightly']);
    await sendEvent(['-m', 'Weekly backup done', '-l', 'info', '-f', 'backup', '-f', 'nightly']);
    const issues = await waitFor(async () => {
      const items = (await s.api('GET', `/api/v1/projects/${p.id}/issues?limit=50`)).json().items as IssueItem[];
      return items.reduce((n, i) => n + i.count, 0) === 4 ? items : undefined;
    }, 20_000);
    expect(issues).toHaveLength(2);
    const deploy = issues.find((i) => i.title === 'Deploy of web failed on host-3');
    expect(deploy).toMatchObject({ count: 2, type: 'default', level: 'error', first_release: 'shop@4.0.0' });
    expect(issues.find((i) => i.title === 'Nightly backup done')).toMatchObject({ count: 2, level: 'info' });

    const events = (await s.api('GET', `/api/v1/issues/${deploy!.id}/events?limit=10`)).json().items as Array<Record<string, unknown>>;
    const first = events.find((e) => e.title === 'Deploy of web failed on host-3') as { event_id: string; project: number };
    const stored = (await s.api('GET', `/api/v1/events/${first.event_id}?project=${first.project}`)).json();
    expect(stored).toMatchObject({ environment: 'production', release: 'shop@4.0.0' });
    expect(JSON.stringify(stored.data ?? stored)).toMatch(/"stage",\s*"deploy"|"stage":\s*"deploy"/);
  }, 90_000);
});
