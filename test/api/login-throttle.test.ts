/**
 * The sign-in throttle: failed passwords counted per account and per client IP on the shared counters (Redis when
 * REDIS_URL is set), 429 too_many_sign_in_attempts with Retry-After on /auth/login and /auth/token past the limit
 * (even for the right password) until the window ends, a success clearing the account's count, unknown names
 * counting the same, the CLI showing the refusal, and sign-in failing open when the counters are unreachable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.ts';
import { MemoryCounters } from '../../core/counters/memory-counters.ts';
import { RedisCounters } from '../../core/counters/redis-counters.ts';
import { isSvcError } from '../../core/errors.ts';
import { createLogger } from '../../core/logger.ts';
import { LoginThrottle } from '../../control-plane/identity/login-throttle.ts';
import { runSvc } from '../cli/run-svc.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { createUser, expectError, PASSWORD } from './identity-fixtures.ts';

const WRONG = 'not the password';
const REFUSAL = /^Too many failed sign-in attempts for this user name or from this address; try again in \d+ (seconds?|minutes?)\.$/;

type Endpoint = 'login' | 'token';

/** A sign-in call from the given client address, without any other credentials. */
function signIn(s: TestServer, endpoint: Endpoint, username: string, password: string, ip: string) {
  return s.app.inject({ method: 'POST', url: `/api/v1/auth/${endpoint}`, payload: { username, password }, remoteAddress: ip });
}

function expectThrottled(res: Awaited<ReturnType<typeof signIn>>, windowS: number): number {
  expectError(res, 429, 'too_many_sign_in_attempts');
  expect(res.json().error.message).toMatch(REFUSAL);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowS);
  expect(res.json().error.details).toEqual({ retry_after: retryAfter });
  return retryAfter;
}

async function failTimes(s: TestServer, n: number, username: string, ip: string | ((i: number) => string), endpoint: Endpoint = 'login'): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await signIn(s, i % 2 ? 'token' : endpoint, username, WRONG, typeof ip === 'string' ? ip : ip(i));
    expectError(res, 401, 'invalid_credentials');
  }
}

describe('with the default limits (10 per account, 50 per address, 15 minutes)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ listen: true });
    await createUser(s, 'alice');
    await createUser(s, 'bob');
    const carol = await s.api('POST', '/api/v1/users', { username: 'carol', email: 'carol@example.com', password: PASSWORD });
    expect(carol.statusCode, carol.body).toBe(201);
  });
  afterAll(async () => s?.close());

  it('refuses the 11th attempt for one user on both endpoints, from any address, even with the right password', async () => {
    // Ten wrong passwords from ten addresses: the account's count, not the address's, is what stops the guessing.
    await failTimes(s, 10, 'alice', (i) => `10.1.0.${i + 1}`);
    for (const endpoint of ['login', 'token'] as const) {
      expect(expectThrottled(await signIn(s, endpoint, 'alice', WRONG, '10.1.1.1'), 900)).toBeGreaterThan(890);
      const right = await signIn(s, endpoint, 'alice', PASSWORD, '10.1.1.2');
      expectThrottled(right, 900);
      expect(right.headers['set-cookie']).toBeUndefined();
    }
    // Other users are not affected.
    expect((await signIn(s, 'login', 'bob', PASSWORD, '10.1.1.1')).statusCode).toBe(200);
  });

  it('svc login shows the refusal', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-throttle-'));
    const r = await runSvc(['login', '--url', s.url, '--user', 'alice', '--password-stdin'], { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') }, `${PASSWORD}\n`);
    rmSync(home, { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('too_many_sign_in_attempts');
    expect(r.stderr).toMatch(/Too many failed sign-in attempts for this user name or from this address; try again in \d+ minutes\./);
  });

  it('a superuser may forget the failures early; nobody else may', async () => {
    const user = await s.api('POST', '/api/v1/tokens', { name: 'bob', scope: 'write', user: 'bob' });
    expectError(await s.api('DELETE', '/api/v1/auth/sign-in-failures?user=alice', undefined, { authorization: `Bearer ${user.json().token}` }), 403, 'superuser_required');
    expectError(await s.api('DELETE', '/api/v1/auth/sign-in-failures'), 400, 'validation_failed');
    expectError(await s.api('DELETE', '/api/v1/auth/sign-in-failures?user=nobody'), 404, 'not_found');
    expectThrottled(await signIn(s, 'login', 'alice', PASSWORD, '10.1.1.3'), 900);
    const cleared = await s.api('DELETE', '/api/v1/auth/sign-in-failures?user=alice');
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toEqual({ cleared: { user: 'alice', ip: null } });
    expect((await signIn(s, 'login', 'alice', PASSWORD, '10.1.1.3')).statusCode).toBe(200);
  });

  it('a successful sign-in before the limit clears the count', async () => {
    await failTimes(s, 9, 'bob', '10.2.0.1');
    expect((await signIn(s, 'token', 'bob', PASSWORD, '10.2.0.1')).statusCode).toBe(201);
    await failTimes(s, 10, 'bob', '10.2.0.1');
    expectThrottled(await signIn(s, 'login', 'bob', PASSWORD, '10.2.0.1'), 900);
  });

  it('counts an unknown user name like a wrong password', async () => {
    await failTimes(s, 10, 'nobody', '10.3.0.1');
    expectThrottled(await signIn(s, 'login', 'nobody', WRONG, '10.3.0.2'), 900);
    expectThrottled(await signIn(s, 'token', 'nobody', WRONG, '10.3.0.3'), 900);
  });

  it('lets exactly 10 of a burst of parallel guesses through to the password check', async () => {
    const all = await Promise.all(Array.from({ length: 25 }, (_, i) => signIn(s, i % 2 ? 'token' : 'login', 'burst', WRONG, `10.5.0.${i + 1}`)));
    const statuses = all.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(15).fill(429)]);
  });

  it('counts the user name and the e-mail of one account together', async () => {
    await failTimes(s, 5, 'carol', '10.4.0.1');
    await failTimes(s, 5, 'carol@example.com', '10.4.0.1');
    expectThrottled(await signIn(s, 'login', 'carol', PASSWORD, '10.4.0.2'), 900);
    expectThrottled(await signIn(s, 'token', 'carol@example.com', PASSWORD, '10.4.0.2'), 900);
  });
});

describe('with small limits', () => {
  // A window long enough that a loaded machine's slow password checks all fall inside it.
  const WINDOW_S = 120;
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_SIGNIN_MAX_FAILURES_PER_USER: '3', SVC_SIGNIN_MAX_FAILURES_PER_IP: '5', SVC_SIGNIN_WINDOW_S: String(WINDOW_S) } });
    await createUser(s, 'erin');
  });
  afterAll(async () => s?.close());

  it('limits one address across different user names, and a success does not clear the address', async () => {
    for (let i = 0; i < 4; i++) expectError(await signIn(s, 'login', `guess${i}`, WRONG, '10.9.0.1'), 401, 'invalid_credentials');
    expect((await signIn(s, 'login', 'erin', PASSWORD, '10.9.0.1')).statusCode).toBe(200);
    expectError(await signIn(s, 'token', 'guess4', WRONG, '10.9.0.1'), 401, 'invalid_credentials');
    // Five failures from this address: every name is refused from it, even a right password; other addresses are not.
    expectThrottled(await signIn(s, 'login', 'guess5', WRONG, '10.9.0.1'), WINDOW_S);
    expectThrottled(await signIn(s, 'token', 'erin', PASSWORD, '10.9.0.1'), WINDOW_S);
    expect((await signIn(s, 'login', 'erin', PASSWORD, '10.9.0.2')).statusCode).toBe(200);
    // A superuser lifts it for the address.
    expect((await s.api('DELETE', '/api/v1/auth/sign-in-failures?ip=10.9.0.1')).json()).toEqual({ cleared: { user: null, ip: '10.9.0.1' } });
    expect((await signIn(s, 'token', 'erin', PASSWORD, '10.9.0.1')).statusCode).toBe(201);
  });

});

describe('with small limits and a short window', () => {
  const WINDOW_S = 4;
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_SIGNIN_MAX_FAILURES_PER_USER: '3', SVC_SIGNIN_MAX_FAILURES_PER_IP: '5', SVC_SIGNIN_WINDOW_S: String(WINDOW_S) } });
    await createUser(s, 'dave');
  });
  afterAll(async () => s?.close());

  it('refuses the right password until the window ends, then lets it in', async () => {
    await failTimes(s, 3, 'dave', '10.8.0.1');
    const retryAfter = expectThrottled(await signIn(s, 'token', 'dave', PASSWORD, '10.8.0.2'), WINDOW_S);
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 50));
    expect((await signIn(s, 'token', 'dave', PASSWORD, '10.8.0.2')).statusCode).toBe(201);
  });
});

/** Lines a logger writes, parsed. */
function captureLogs(): { log: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('warn', sink), lines };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('the throttle itself', () => {
  it('logs one warning when an account or an address reaches its limit', async () => {
    const { log, lines } = captureLogs();
    const t = new LoginThrottle(new MemoryCounters(new ManualClock()), log, { maxPerUser: 2, maxPerIp: 3, windowS: 60 });
    for (const name of ['x:mallory', 'x:mallory', 'x:trent']) await t.failed(await t.check(name, '10.7.0.1'));
    await settle();
    expect(lines.map((l) => [l.level, l.account, l.ip, l.failures])).toEqual([
      [40, 'x:mallory', '10.7.0.1', 2],
      [40, undefined, '10.7.0.1', 3],
    ]);
  });

  it('starts a new window once the old one has passed', async () => {
    const clock = new ManualClock();
    const t = new LoginThrottle(new MemoryCounters(clock), createLogger('silent'), { maxPerUser: 1, maxPerIp: 100, windowS: 60 });
    await t.failed(await t.check('x:oscar', '10.7.0.2'));
    clock.advance(59_000);
    const refused = await t.check('x:oscar', '10.7.0.2').catch((e: unknown) => e);
    expect(isSvcError(refused) && refused.headers).toEqual({ 'Retry-After': '1' });
    clock.advance(1_000);
    await expect(t.check('x:oscar', '10.7.0.2')).resolves.toMatchObject({ user: 'x:oscar' });
  });

  it('lets sign-in through, logged, when the counters are unreachable', async () => {
    const { log, lines } = captureLogs();
    const down = new RedisCounters('redis://127.0.0.1:1', 'unreachable:');
    try {
      const t = new LoginThrottle(down, log, { maxPerUser: 1, maxPerIp: 1, windowS: 60 });
      for (let i = 0; i < 3; i++) {
        const attempt = await t.check('x:peggy', '10.7.0.3');
        expect(attempt.counts).toBeUndefined();
        await t.failed(attempt);
      }
      await settle();
      expect(lines.length).toBe(3);
      expect(lines[0]).toMatchObject({ level: 40, msg: expect.stringContaining('cannot be used') });
    } finally {
      await down.close();
    }
  });
});
