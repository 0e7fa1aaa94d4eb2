/**
 * Strings Postgres cannot store (U+0000, lone UTF-16 surrogates; jsonb refuses their `\u` escapes too) arrive in
 * events as JSON escapes. They are made storable (U+FFFD) before the writer sees them: the event is accepted and
 * stored, and the events after it are stored as well (nothing retries a failing batch behind it).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, post, randomEventId, sentryAuth, STORED_DOCUMENT, waitFor } from './support/ingest-helpers.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

// Written by hand: JSON.stringify would write a lone surrogate as the same escape, but a NUL key must be spelled out.
const BAD_EVENT = String.raw`{"message":"nul \u0000 and lone \ud800 here","tags":{"nul":"v\u0000al","lone":"\udc00x"},"extra":{"nested":{"n\u0000":"x\u0000y","s":["\ud83d"]}},"user":{"id":"u\u00001","username":"n\udc00me"},"release":"1.0\ud800","environment":"prod\ud800","exception":{"values":[{"type":"Err\ud800or","value":"bad \udfff value"}]}}`;

function envelope(eventJson: string, id: string): Buffer {
  return Buffer.from(`{"event_id":"${id}"}\n{"type":"event"}\n${eventJson}`);
}

it('stores an event with NUL and lone surrogates (as U+FFFD), and the events sent after it', async () => {
  const p = await createProject(s);
  const badId = randomEventId();
  const bad = await post(s, `/api/${p.id}/envelope/`, envelope(BAD_EVENT, badId), sentryAuth(p.publicKey));
  expect(bad.statusCode, bad.body).toBe(200);
  const laterIds = [randomEventId(), randomEventId(), randomEventId()];
  for (const [i, id] of laterIds.entries()) {
    const res = await post(s, `/api/${p.id}/envelope/`, envelope(JSON.stringify({ message: `later ${i}` }), id), sentryAuth(p.publicKey));
    expect(res.statusCode).toBe(200);
  }

  const rows = await waitFor(async () => {
    const r = await s.db.query<{ event_id: string; data: Record<string, unknown>; title: string; release: string | null; environment: string | null }>(
      `SELECT event_id, ${STORED_DOCUMENT}, title, release, environment FROM events WHERE project_id = $1`, [p.id]);
    return r.rows.length === 4 ? r.rows : undefined;
  }, 20_000);
  expect(rows.map((r) => r.event_id).sort()).toEqual([badId, ...laterIds].sort());

  const stored = rows.find((r) => r.event_id === badId)!;
  const text = JSON.stringify(stored);
  expect(text).not.toContain('\\u0000');
  expect(JSON.stringify(stored.data).isWellFormed()).toBe(true);
  expect(stored.data.message ?? (stored.data.logentry as { formatted?: string } | undefined)?.formatted).toBe('nul \uFFFD and lone \uFFFD here');
  expect(stored.data.tags).toEqual({ nul: 'v\uFFFDal', lone: '\uFFFDx' });
  expect((stored.data.extra as { nested: unknown }).nested).toEqual({ 'n\uFFFD': 'x\uFFFDy', s: ['\uFFFD'] });
  expect(stored.release).toBe('1.0\uFFFD');
  expect(stored.environment).toBe('prod\uFFFD');
  expect(stored.title).toBe('Err\uFFFDor: bad \uFFFD value');
  // A NUL in an identifier-like field (here the user id) drops the field, as any control character does.
  expect(stored.data.user).toEqual({ username: 'n\uFFFDme' });

  const issue = await s.db.query<{ title: string }>('SELECT title FROM issues WHERE project_id = $1 AND title LIKE $2', [p.id, 'Err%']);
  expect(issue.rows[0].title).toBe('Err\uFFFDor: bad \uFFFD value');
  const releases = await s.db.query<{ version: string }>('SELECT version FROM releases WHERE project_id = $1', [p.id]);
  expect(releases.rows.map((r) => r.version)).toEqual(['1.0\uFFFD']);
});
