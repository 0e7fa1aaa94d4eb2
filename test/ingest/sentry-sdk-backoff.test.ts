/**
 * Rate limiting makes a real SDK back off: the project allows 2 events a minute; the third request gets a 429 with
 * X-Sentry-Rate-Limits, and the SDK then drops further events itself instead of sending them (the server sees
 * exactly one refused request), and reports what it dropped in a client report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Sentry from '@sentry/node';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, outcomes, waitFor, waitForEvents, type TestProject } from './support/ingest-helpers.ts';

let s: TestServer;
let p: TestProject;

beforeAll(async () => {
  s = await startTestServer({ listen: true });
  p = await createProject(s, { events_per_minute: 2 });
  Sentry.init({ dsn: p.dsn, defaultIntegrations: false, sendClientReports: true });
});
afterAll(async () => {
  await s?.close();
});

describe('an SDK under our rate limit', () => {
  it('stops sending after the 429 and reports its own discards', async () => {
    for (let i = 0; i < 6; i++) {
      Sentry.captureMessage(`event ${i}`);
      await Sentry.flush(3000);
    }
    // The refusal is counted at once, the accepted events when the batch writer has stored them: wait for both.
    await waitForEvents(s.db, p.id, 2);
    const counted = await waitFor(async () => {
      const o = await outcomes(s.db, p.id);
      return o['rate_limited:project_events_per_minute'] && o.accepted >= 2 ? o : undefined;
    });
    expect(counted.accepted).toBe(2);
    // One refused request: the SDK read the header and dropped the next three events without sending them.
    expect(counted['rate_limited:project_events_per_minute']).toBe(1);
    const stored = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [p.id]);
    expect(stored.rows[0].n).toBe(2);

    // On close the SDK sends a client report of what it dropped during the backoff.
    await Sentry.close(3000);
    // The SDK may report its drops in more than one client report (each written with the next outcome flush).
    await expect.poll(async () => (await outcomes(s.db, p.id))['client_discard:ratelimit_backoff'], { timeout: 15_000, interval: 100 }).toBe(3);
  });
});
