/**
 * @sentry/node as a real client of a running server, given a DSN of ours: events arrive over HTTP, are grouped as
 * the rules say (same type and in-app frames = one issue, whatever the message's numbers), and messages group by
 * their parameterised text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Sentry from '@sentry/node';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, STORED_DOCUMENT, waitFor, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  p = await createProject(s);
  Sentry.init({ dsn: p.dsn, release: 'shop@2.1.0', environment: 'test', defaultIntegrations: false, attachStacktrace: true });
});
afterAll(async () => {
  await Sentry.close(2000);
  await s?.close();
});

function loadUser(id: number): never {
  throw new TypeError(`User ${id} not found`);
}

function captureLoad(id: number): void {
  try {
    loadUser(id);
  } catch (e) {
    Sentry.captureException(e);
  }
}

function chargeCard(): void {
  try {
    throw new RangeError('amount out of range');
  } catch (e) {
    Sentry.captureException(e);
  }
}

interface IssueItem {
  id: string;
  title: string;
  culprit: string;
  count: number;
  level: string;
  first_release: string;
  type: string;
}

async function issues(): Promise<IssueItem[]> {
  return (await s.api('GET', `/api/v1/projects/${p.id}/issues?limit=200`)).json().items;
}

describe('@sentry/node against our DSN', () => {
  it('sends exceptions that group by type and in-app frames, not by the message numbers', async () => {
    captureLoad(1);
    captureLoad(2);
    captureLoad(3);
    chargeCard();
    await Sentry.flush(5000);
    const list = await waitFor(async () => {
      const l = await issues();
      return l.reduce((n, i) => n + i.count, 0) >= 4 ? l : undefined;
    });
    const typeErrors = list.filter((i) => i.title.startsWith('TypeError'));
    expect(typeErrors).toHaveLength(1);
    expect(typeErrors[0]).toMatchObject({ count: 3, level: 'error', first_release: 'shop@2.1.0', type: 'error' });
    expect(typeErrors[0].title).toMatch(/^TypeError: User \d not found$/);
    expect(typeErrors[0].culprit).toContain('loadUser');
    expect(list.filter((i) => i.title.startsWith('RangeError'))).toHaveLength(1);

    const ev = await s.db.query<{ data: { sdk?: { name: string }; environment: string } }>(
      `SELECT ${STORED_DOCUMENT} FROM events WHERE issue_id = $1 LIMIT 1`, [typeErrors[0].id]);
    expect(ev.rows[0].data.environment).toBe('test');
    const rel = await s.db.query<{ version: string }>('SELECT version FROM releases WHERE project_id = $1', [p.id]);
    expect(rel.rows.map((r) => r.version)).toEqual(['shop@2.1.0']);
  });

  it('sends messages that group by their text with numbers and ids taken out', async () => {
    Sentry.captureMessage('Order 1234 failed for 0f8fad5b-d9cb-469f-a165-70867728950e');
    Sentry.captureMessage('Order 98 failed for 7c9e6679-7425-40de-944b-e07fc1f90ae7');
    Sentry.captureMessage('Cache warmed', 'info');
    await Sentry.flush(5000);
    const list = await waitFor(async () => {
      const l = await issues();
      return l.filter((i) => i.type === 'default').reduce((n, i) => n + i.count, 0) >= 3 ? l : undefined;
    });
    const orders = list.filter((i) => i.title.startsWith('Order'));
    expect(orders).toHaveLength(1);
    expect(orders[0].count).toBe(2);
    expect(list.find((i) => i.title === 'Cache warmed')).toMatchObject({ level: 'info', count: 1 });
  });
});
