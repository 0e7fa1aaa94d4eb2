/** Scrubbing end to end: no listed secret survives anywhere in the stored event, with the project's own keys too. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createProject, eventEnvelope, post, randomEventId, sentryAuth, STORED_DOCUMENT, waitFor } from './support/ingest-helpers.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

const SECRETS = [
  'hunter2-password', 'sk-live-0123456789abcdefXYZ', 'tok_9f8e7d6c5b4a', 'api-key-77aa88bb', 'sessid-5566778899',
  'csrf-abcabcabc', 'cookie-value-1234', 'DE89370400440532013000', 'private-key-pem-body', '4111 1111 1111 1111',
  'bearer-credential-Zx9', 'dsn-secret-part', 'authz-basic-Qw3',
];

it('stores no secret from headers, query strings, cookies, bodies, tags, breadcrumbs, messages or extra', async () => {
  const p = await createProject(s, { scrub_keys: ['iban'] });
  const id = randomEventId();
  const event = {
    message: `login failed with Bearer ${SECRETS[10]} for card 4111 1111 1111 1111`,
    exception: { values: [{ type: 'AuthError', value: `password=${SECRETS[0]}`, stacktrace: { frames: [{ function: 'login', filename: 'app.js', vars: { password: SECRETS[0], apiKey: SECRETS[3] } }] } }] },
    request: {
      url: `https://shop.example/cb?token=${SECRETS[2]}&page=2`,
      method: 'POST',
      query_string: `api_key=${SECRETS[3]}&q=shoes`,
      cookies: `sessionid=${SECRETS[4]}; theme=dark`,
      headers: [['Authorization', `Basic ${SECRETS[12]}`], ['X-CSRF-Token', SECRETS[5]], ['Cookie', `a=${SECRETS[6]}`], ['Accept', 'text/html']],
      data: { card: { cvv: '123', number: '4111111111111111' }, iban: SECRETS[7] },
      env: { DSN: `https://pk:${SECRETS[11]}@errors.example/1` },
    },
    user: { id: 'u-1', email: 'shopper@example.com', ip_address: '{{auto}}' },
    tags: [['session_id', SECRETS[4]], ['region', 'eu']],
    breadcrumbs: { values: [{ category: 'http', data: { url: `/api?access_token=${SECRETS[2]}` }, message: `secret: "${SECRETS[8]}"` }] },
    extra: { config: { private_key: SECRETS[8], nested: [{ client_secret: SECRETS[1] }] }, note: `Authorization: Bearer ${SECRETS[1]}` },
    contexts: { app: { type: 'app', app_token: SECRETS[2] } },
  };
  const res = await post(s, `/api/${p.id}/envelope/`, eventEnvelope(event, { event_id: id }), sentryAuth(p.publicKey));
  expect(res.statusCode).toBe(200);
  const row = await waitFor(async () => (await s.db.query<{ data: Record<string, unknown>; title: string }>(`SELECT ${STORED_DOCUMENT}, title FROM events WHERE project_id = $1 AND event_id = $2`, [p.id, id])).rows[0]);
  const stored = JSON.stringify(row) + JSON.stringify((await s.db.query('SELECT title, culprit FROM issues WHERE project_id = $1', [p.id])).rows);
  for (const secret of SECRETS) expect(stored, secret).not.toContain(secret);
  expect(stored).not.toContain('4111111111111111');
  expect(stored).not.toContain('{{auto}}');
  // What is not secret stays.
  expect(stored).toContain('shoes');
  expect(stored).toContain('page=2');
  expect(stored).toContain('shopper@example.com');
  expect(stored).toContain('[Filtered]');
});
