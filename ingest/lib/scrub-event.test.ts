import { describe, expect, it } from 'vitest';
import { normalizeEvent } from './normalize-event.ts';
import { FILTERED, createScrubber, isCardNumber, scrubEvent, scrubEventInPlace } from './scrub-event.ts';

/** Every secret planted in the nasty event; none may survive anywhere in the stored event. */
const S = {
  password: 'hunter2-pw-1',
  headerAuth: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNlY3JldA',
  basic: 'dXNlcjpwYXNzd29yZDE=',
  cookieHeader: 'sessval-7781',
  apiKeyHeader: 'apikey-header-9931',
  cookieString: 'cookie-str-4410',
  cookieObj: 'cookie-obj-1188',
  queryString: 'qs-token-5521',
  queryPairs: 'qs-pair-secret-8812',
  queryObj: 'qs-obj-secret-6620',
  urlToken: 'url-token-3390',
  urlPassword: 'url-pw-7127',
  crumbUrl: 'crumb-token-2201',
  crumbMsg: 'crumb-bearer-Zq81xK22',
  extraNested: 'nested-secret-0043',
  arraySecret: 'array-pw-1209',
  skKey: 'sk-proj-Abc123def456ghi789jkl',
  card: '4111 1111 1111 1111',
  cardNumber: 4012888888881881,
  frameVar: 'frame-api-key-6671',
  contextLine: 'ctx-line-pw-9924',
  tagSession: 'tag-session-7702',
  dsnSecret: 'https://pk:dsn-secret-5510@errors.example.com/1',
  userCredit: 'user-credit-3130',
  csrf: 'csrf-tok-4456',
  privateKey: '-----BEGIN PRIVATE KEY----- pk-body-8821',
  envCookie: 'env-cookie-6634',
  projectKey: 'ssn-123-45-6789',
  jsonInMessage: 'json-msg-pw-1150',
  github: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  aws: 'AKIAIOSFODNN7EXAMPLE',
};

function nastyEvent(): Record<string, unknown> {
  return {
    event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
    message: `login failed with {"password":"${S.jsonInMessage}"} for card ${S.card}`,
    exception: {
      values: [{
        type: 'AuthError',
        value: `upstream said 401 for key ${S.skKey} and Authorization: Bearer ${S.headerAuth}`,
        stacktrace: {
          frames: [{
            filename: '/app/src/login.js',
            function: 'login',
            in_app: true,
            context_line: `  const password = "${S.contextLine}";`,
            pre_context: [`  db.connect("postgres://app:${S.urlPassword}@db:5432/app")`],
            vars: { api_key: S.frameVar, self: { client_secret: 'client-secret-x' }, ok: 'visible-var' },
          }],
        },
      }],
    },
    request: {
      method: 'POST',
      url: `https://shop.example.com/login?next=/home&access_token=${S.urlToken}`,
      query_string: `page=2&token=${S.queryString}`,
      headers: [
        ['Authorization', `Basic ${S.basic}`],
        ['Cookie', `session=${S.cookieHeader}; theme=dark`],
        ['X-Api-Key', S.apiKeyHeader],
        ['Accept', 'application/json'],
      ],
      cookies: `sessionid=${S.cookieString}; lang=en`,
      data: { username: 'bob', password: S.password, card_number: S.card, nested: [{ deep: { secret: S.extraNested } }] },
      env: { HTTP_COOKIE: S.envCookie, REMOTE_ADDR: '10.0.0.1' },
    },
    breadcrumbs: {
      values: [
        { category: 'fetch', data: { url: `https://api.example.com/v1/items?api_key=${S.crumbUrl}&page=1`, method: 'GET' } },
        { category: 'console', message: `sending Authorization: Bearer ${S.crumbMsg}` },
        { category: 'navigation', data: { from: '/a', to: `/b?csrf_token=${S.csrf}` } },
      ],
    },
    user: { id: '42', email: 'bob@example.com', data: { credit_card: S.userCredit } },
    tags: [['session_id', S.tagSession], ['release_channel', 'beta']],
    contexts: { app: { dsn: S.dsnSecret, name: 'shop' }, keys: { private_key: S.privateKey } },
    extra: {
      list: [[['password', S.arraySecret]], 'plain'],
      cookies_obj: { a: S.cookieObj },
      query_pairs: { query_string: [['secret', S.queryPairs]] },
      query_obj: { query: { api_key: S.queryObj, q: 'shoes' } },
      card_as_number: S.cardNumber,
      ssn: S.projectKey,
      github: `token is ${S.github}`,
      aws: `key ${S.aws} leaked`,
    },
  };
}

describe('scrubEvent: no listed secret survives', () => {
  const raw = nastyEvent();
  const scrubbed = scrubEvent(raw, ['ssn']);
  const stored = JSON.stringify(normalizeEvent(scrubbed, { receivedAt: new Date(), retentionDays: 90 }).data);

  it.each(Object.entries(S))('%s is gone from the stored event', (_name, secret) => {
    expect(JSON.stringify(raw)).toContain(String(secret).replace(/"/g, '\\"').slice(0, 12));
    expect(stored).not.toContain(String(secret));
  });

  it('keeps what is not secret', () => {
    for (const visible of ['visible-var', 'application/json', 'bob@example.com', 'beta', 'shoes', 'next=/home', 'page=2', 'AuthError', '10.0.0.1', 'shop', 'upstream said 401']) {
      expect(stored).toContain(visible);
    }
    expect(stored).toContain(`access_token=${FILTERED}`);
    expect(stored).toContain('"Accept","application/json"');
  });

  it('does not mutate its input', () => {
    expect(raw).toEqual(nastyEvent());
  });
});

describe('scrubEventInPlace', () => {
  it('writes into the event what scrubEvent returns as a copy', () => {
    const own = nastyEvent();
    expect(scrubEventInPlace(own, ['ssn'])).toBe(own);
    expect(own).toEqual(scrubEvent(nastyEvent(), ['ssn']));
  });

  it('truncates deep nesting and keeps "__proto__" keys as plain data, as the copy does', () => {
    const s = createScrubber();
    const nested = `${'['.repeat(500)}{"token":"x","__proto__":{"password":"y"}}${']'.repeat(500)}`;
    expect(JSON.stringify(s.scrubInPlace(JSON.parse(nested)))).toBe(JSON.stringify(s.scrub(JSON.parse(nested))));
    const proto = JSON.parse('{"__proto__":{"password":"x"},"headers":[["Cookie","a=b"],["Accept","json"]]}') as Record<string, unknown>;
    s.scrubInPlace(proto);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toEqual({ password: FILTERED });
    expect(proto.headers).toEqual([['Cookie', FILTERED], ['Accept', 'json']]);
  });
});

describe('createScrubber', () => {
  const s = createScrubber(['x-internal']);

  it('matches sensitive keys by substring, in any case', () => {
    for (const k of ['password', 'DB_PASSWORD', 'clientSecret', 'X-Auth-Token', 'Authorization', 'Set-Cookie', 'API-KEY', 'apikey', 'JSESSIONID', 'PHPSESSID', 'csrfmiddlewaretoken', 'credit_card', 'cvv2', 'PRIVATE_KEY', 'sentry_dsn', 'X-Internal-Id']) {
      expect(s.isSensitiveKey(k), k).toBe(true);
    }
    for (const k of ['username', 'email', 'url', 'method', 'frames', 'release', 'level']) expect(s.isSensitiveKey(k), k).toBe(false);
  });

  it('filters values of any type except booleans and null', () => {
    expect(s.scrub({ password: 123, token: { a: 1 }, secret: [1], auth: true, session: null })).toEqual({ password: FILTERED, token: FILTERED, secret: FILTERED, auth: true, session: null });
  });

  it.each([
    ['a=1&token=abc&b=2', `a=1&token=${FILTERED}&b=2`],
    ['/path?api_key=xyz#frag', `/path?api_key=${FILTERED}#frag`],
    ['theme=dark; session_id=abc; lang=en', `theme=dark; session_id=${FILTERED}; lang=en`],
    ['password = "hunter2"', `password = ${FILTERED}`],
    [`{"auth_token": "abc", "user": "bob"}`, `{"auth_token": "${FILTERED}", "user": "bob"}`],
    ["config { secret: 'abc' }", `config { secret: '${FILTERED}' }`],
    ['redis://:pa55word@cache:6379/0', `redis://:${FILTERED}@cache:6379/0`],
    ['Authorization: Bearer abc.def.ghi123', `Authorization: Bearer ${FILTERED}`],
    ['Basic authentication failed', 'Basic authentication failed'],
    ['paid with 5555-5555-5555-4444 today', `paid with ${FILTERED} today`],
    ['order 4111111111111112 (not Luhn)', 'order 4111111111111112 (not Luhn)'],
    ['event 9ec79c33ec9942ab8353589fcb2e04dc stays', 'event 9ec79c33ec9942ab8353589fcb2e04dc stays'],
    ['ts 1714979289000 stays', 'ts 1714979289000 stays'],
    ['task-runner-service-pool stays', 'task-runner-service-pool stays'],
    ['token=', 'token='],
  ])('scrubs text %s', (input, expected) => {
    expect(s.scrubText(input)).toBe(expected);
  });

  it('scrubs [key, value] pair lists by key', () => {
    expect(s.scrub([['Authorization', 'x'], ['Accept', 'json'], ['Cookie', 'a=b']])).toEqual([['Authorization', FILTERED], ['Accept', 'json'], ['Cookie', FILTERED]]);
  });

  it('stays linear on a megabyte of hostile text', () => {
    const hostile = [
      `${'x'.repeat(1_000_000)}:"a"`, `${'a.'.repeat(500_000)}://`, `${'a=b'.repeat(300_000)}:`, '1 '.repeat(500_000),
      'sk-'.repeat(300_000), '"k": '.repeat(200_000), `${'?'.repeat(1_000_000)}=`, 'Bearer '.repeat(140_000), `${'eyJ'.repeat(300_000)}.`,
      'password: '.repeat(100_000), `${'token'.repeat(200_000)}: x`, `${'a-'.repeat(500_000)}secret: y`,
    ];
    for (const text of hostile) {
      const t0 = performance.now();
      s.scrubText(text);
      expect(performance.now() - t0, text.slice(0, 10)).toBeLessThan(1000);
    }
  });

  it('truncates hostile nesting instead of overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(JSON.stringify(s.scrub(deep))).toContain('[Truncated]');
  });

  it('keeps "__proto__" keys as plain data', () => {
    const out = s.scrub(JSON.parse('{"__proto__":{"password":"x"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ password: FILTERED });
  });
});

describe('isCardNumber', () => {
  it('accepts Luhn-valid numbers with a card prefix only', () => {
    expect(isCardNumber('4111111111111111')).toBe(true);
    expect(isCardNumber('378282246310005')).toBe(true);
    expect(isCardNumber('4111111111111112')).toBe(false);
    expect(isCardNumber('1234567812345670')).toBe(false); // Luhn-valid, no card prefix
    expect(isCardNumber('411111111111')).toBe(false);
  });
});

describe('free-text secrets', () => {
  const s = createScrubber(['iban']);

  it.each([
    ['request failed: Bearer abcDEF123456789xyz', 'request failed: Bearer [Filtered]'],
    ['retrying with token=abc123def456', 'retrying with token=[Filtered]'],
    ['login with password: hunter2 failed', 'login with password: [Filtered] failed'],
    ['db password=hunter2', 'db password=[Filtered]'],
    ['Password:letmein', 'Password:[Filtered]'],
    ['calling with api_key=AKxyz1234567', 'calling with api_key=[Filtered]'],
    ['config secret: s3cr3t-Value-99 loaded', 'config secret: [Filtered] loaded'],
    ['client token: tok_9f8e7d6c5b4a', 'client token: [Filtered]'],
    ['iban: DE89370400440532013000', 'iban: [Filtered]'],
    ['key sk-ant-api03-abcdefghijklmnop1234 used', 'key [Filtered] used'],
    ['key sk-svc-0123456789abcdefghij', 'key [Filtered]'],
    ['key sk-proj-Abc123def456ghi789jkl', 'key [Filtered]'],
    ['pushed with ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'pushed with [Filtered]'],
    ['pushed with github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'pushed with [Filtered]'],
    ['aws AKIAIOSFODNN7EXAMPLE denied', 'aws [Filtered] denied'],
    ['slack xoxb-123456789012-abcdefghij', 'slack [Filtered]'],
    ['slack xoxp-123456789012-abcdefghij', 'slack [Filtered]'],
    ['slack xoxa-2-123456789012-abcdefghij', 'slack [Filtered]'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'jwt [Filtered]'],
  ])('scrubs %s', (input, expected) => {
    expect(s.scrubText(input)).toBe(expected);
  });

  it.each([
    'token limit exceeded', 'password reset sent', 'Bearer of bad news', 'task-runner started', 'desk-lamp is on',
    'token: expired', 'secret: none', 'Token expired, sign in again', 'the ask-for-help-desk-queue-2024 grew',
    'see https://example.com/docs', 'password:', 'Basic authentication failed', 'time 12:30:45',
  ])('keeps %s', (input) => {
    expect(s.scrubText(input)).toBe(input);
  });

  it('scrubs them in messages, exception values, breadcrumbs and log entries', () => {
    const event = {
      message: 'password: hunter2',
      logentry: { message: 'connect with token=abc123def456', formatted: 'connect with token=abc123def456' },
      exception: { values: [{ type: 'AuthError', value: 'Bearer abcDEF123456789xyz refused' }] },
      breadcrumbs: [{ message: 'used sk-ant-api03-abcdefghijklmnop1234', data: { note: 'AKIAIOSFODNN7EXAMPLE', list: ['ghp_abcdefghijklmnopqrstuvwxyz0123456789'] } }],
    };
    const text = JSON.stringify(scrubEvent(event));
    for (const secret of ['hunter2', 'abc123def456', 'abcDEF123456789xyz', 'sk-ant-', 'AKIAIOSFODNN7EXAMPLE', 'ghp_']) expect(text).not.toContain(secret);
  });
});
