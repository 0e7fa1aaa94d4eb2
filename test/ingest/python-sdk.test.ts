/**
 * The official Python SDK (sentry_sdk, Debian's python3-sentry-sdk, which `.ci/run` installs) as a real client of a
 * running server: an exception raised twice with other values is one issue, titled and named as Sentry does; the
 * logging integration's records are formatted from their parameters and group by their template, whatever the
 * level; capture_message opens an issue of its own.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, waitFor, type TestProject } from './support/ingest-helpers.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/send_events.py', import.meta.url));
const run = promisify(execFile);

async function pythonSdk(): Promise<string | undefined> {
  try {
    return (await run(PYTHON, ['-c', 'import sentry_sdk; print(sentry_sdk.VERSION)'])).stdout.trim();
  } catch {
    return undefined;
  }
}

const version = await pythonSdk();
if (version === undefined) console.warn('python-sdk.test: skipped, /usr/bin/python3 has no sentry_sdk (apt-get install python3-sentry-sdk)');

let s: TestServer;
let p: TestProject;

interface IssueItem { title: string; culprit: string; count: number; level: string; type: string; first_release: string }

describe.skipIf(version === undefined)(`the Python SDK ${version ?? ''} against our DSN`, () => {
  beforeAll(async () => {
    s = await startTestServer({ listen: true });
    p = await createProject(s);
  });
  afterAll(async () => s?.close());

  it('sends exceptions and log records that are titled, named and grouped as Sentry does', async () => {
    await run(PYTHON, [SCRIPT, p.dsn], { timeout: 60_000 });
    const issues = await waitFor(async () => {
      const items = (await s.api('GET', `/api/v1/projects/${p.id}/issues?limit=50`)).json().items as IssueItem[];
      return items.reduce((n, i) => n + i.count, 0) === 6 ? items : undefined;
    }, 20_000);
    const byTitle = Object.fromEntries(issues.map((i) => [i.title, i]));
    expect(Object.keys(byTitle).sort()).toEqual([
      'Inventory sync finished with 3 warnings',
      'Order A-1 failed for bob@example.com',
      'ZeroDivisionError: division by zero',
    ]);
    expect(byTitle['ZeroDivisionError: division by zero']).toMatchObject({ count: 2, culprit: '__main__ in divide', type: 'error', first_release: 'shop@3.0.1' });
    // Two errors and a warning of one template: one issue (the level does not split a message's issue).
    expect(byTitle['Order A-1 failed for bob@example.com']).toMatchObject({ count: 3, type: 'default', level: 'error' });
    expect(byTitle['Inventory sync finished with 3 warnings']).toMatchObject({ count: 1, level: 'info' });
  }, 90_000);
});
