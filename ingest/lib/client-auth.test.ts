import { describe, expect, it } from 'vitest';
import { extractClientKey, parseDsn, type ClientKeyInput } from './client-auth.ts';

const PK = 'e12d836b15bb49d7bbf99e64295d995b';
const OTHER = '0123456789abcdef0123456789abcdef';

function refusal(input: ClientKeyInput): string {
  try {
    extractClientKey(input);
  } catch (e) {
    const err = e as { status: number; code: string };
    return `${err.status} ${err.code}`;
  }
  return 'accepted';
}

describe('extractClientKey: each place', () => {
  it('reads X-Sentry-Auth with its version and client', () => {
    const k = extractClientKey({ headers: { 'x-sentry-auth': `Sentry sentry_key=${PK}, sentry_version=7, sentry_client=sentry.javascript.node/8.0.0, sentry_timestamp=1714979289` } });
    expect(k).toEqual({ publicKey: PK, sdk: 'sentry.javascript.node/8.0.0', protocolVersion: '7', sources: ['x-sentry-auth'] });
  });

  it('accepts the prefix in any case, no prefix, spaces, quotes and a secret', () => {
    for (const value of [
      `SENTRY sentry_key=${PK},sentry_version=7`,
      `sentry   sentry_version=7 ,  sentry_key = ${PK} , sentry_secret=abc`,
      `sentry_key=${PK}`,
      `Sentry sentry_key="${PK}"`,
      `Sentry key=${PK}`,
    ]) {
      expect(extractClientKey({ headers: { 'X-Sentry-Auth': value } }).publicKey).toBe(PK);
    }
  });

  it('reads our own X-Client-Auth with client_key', () => {
    expect(extractClientKey({ headers: { 'x-client-auth': `Sentry client_key=${PK}, client_version=7` } })).toMatchObject({ publicKey: PK, protocolVersion: '7', sources: ['x-client-auth'] });
    expect(extractClientKey({ headers: { 'X-Client-Auth': `client_key=${PK}` } }).publicKey).toBe(PK);
  });

  it('reads Authorization: Sentry, Bearer and Basic', () => {
    expect(extractClientKey({ headers: { authorization: `Sentry sentry_key=${PK}, sentry_client=raven-python/6.0` } })).toMatchObject({ publicKey: PK, sdk: 'raven-python/6.0' });
    expect(extractClientKey({ headers: { Authorization: `Bearer ${PK}` } }).publicKey).toBe(PK);
    expect(extractClientKey({ headers: { authorization: `Basic ${Buffer.from(`${PK}:`).toString('base64')}` } }).publicKey).toBe(PK);
    expect(extractClientKey({ headers: { authorization: `basic ${Buffer.from(`${PK}:secret`).toString('base64')}` } }).publicKey).toBe(PK);
  });

  it('reads the query string (what browser SDKs use)', () => {
    expect(extractClientKey({ headers: {}, query: { sentry_key: PK, sentry_version: '7', sentry_client: 'sentry.javascript.browser/8.1.0' } }))
      .toEqual({ publicKey: PK, sdk: 'sentry.javascript.browser/8.1.0', protocolVersion: '7', sources: ['query'] });
    expect(extractClientKey({ headers: {}, query: { client_key: PK } }).publicKey).toBe(PK);
  });

  it('reads the envelope dsn and reports its project id', () => {
    expect(extractClientKey({ headers: {}, envelopeDsn: `https://${PK}@errors.example.com/42` }))
      .toEqual({ publicKey: PK, dsnProjectId: '42', sources: ['envelope-dsn'] });
  });
});

describe('extractClientKey: several places', () => {
  it('accepts several places that agree', () => {
    const k = extractClientKey({
      headers: { 'x-sentry-auth': `Sentry sentry_key=${PK}`, authorization: `Bearer ${PK}` },
      query: { sentry_key: PK },
      envelopeDsn: `https://${PK}@errors.example.com/42`,
    });
    expect(k.publicKey).toBe(PK);
    expect(k.sources).toEqual(['x-sentry-auth', 'authorization', 'query', 'envelope-dsn']);
  });

  it.each<[string, ClientKeyInput]>([
    ['header and query', { headers: { 'x-sentry-auth': `Sentry sentry_key=${PK}` }, query: { sentry_key: OTHER } }],
    ['two auth headers', { headers: { 'x-sentry-auth': `Sentry sentry_key=${PK}`, 'x-client-auth': `client_key=${OTHER}` } }],
    ['query and dsn', { headers: {}, query: { sentry_key: PK }, envelopeDsn: `https://${OTHER}@h/1` }],
    ['a repeated query parameter', { headers: {}, query: { sentry_key: [PK, OTHER] } }],
    ['sentry_key and client_key', { headers: {}, query: { sentry_key: PK, client_key: OTHER } }],
    ['bearer and header', { headers: { authorization: `Bearer ${OTHER}`, 'x-sentry-auth': `sentry_key=${PK}` } }],
  ])('refuses keys that disagree (%s) with 400 conflicting_client_keys', (_name, input) => {
    expect(refusal(input)).toBe('400 conflicting_client_keys');
  });

  it('refuses when there is no key at all with 401 missing_client_key', () => {
    expect(refusal({ headers: {} })).toBe('401 missing_client_key');
    expect(refusal({ headers: { 'x-sentry-auth': 'Sentry sentry_version=7' }, query: { sentry_version: '7' } })).toBe('401 missing_client_key');
    expect(refusal({ headers: { authorization: 'Token abc' } })).toBe('401 missing_client_key');
    expect(refusal({ headers: { authorization: 'Basic !!!' } })).toBe('401 missing_client_key');
    expect(refusal({ headers: {}, query: { sentry_key: '' } })).toBe('401 missing_client_key');
    expect(refusal({ headers: {}, envelopeDsn: 'not a dsn' })).toBe('401 missing_client_key');
  });

  it('ignores a present but unreadable place when another has the key', () => {
    expect(extractClientKey({ headers: { authorization: 'Negotiate xyz' }, query: { sentry_key: PK }, envelopeDsn: 'garbage' }).publicKey).toBe(PK);
  });
});

describe('parseDsn', () => {
  it('parses the parts of a DSN', () => {
    expect(parseDsn(`https://${PK}@o1.ingest.example.com/42`)).toEqual({ scheme: 'https', publicKey: PK, host: 'o1.ingest.example.com', path: '', projectId: '42' });
    expect(parseDsn(`http://${PK}:deprecatedsecret@localhost:9000/errors/api/7`)).toEqual({
      scheme: 'http', publicKey: PK, secretKey: 'deprecatedsecret', host: 'localhost', port: 9000, path: '/errors/api', projectId: '7',
    });
    expect(parseDsn(`https://${PK}@h.example/42/`)?.projectId).toBe('42');
  });

  it.each([
    ['no key', 'https://errors.example.com/42'],
    ['a non-numeric project', `https://${PK}@errors.example.com/v1`],
    ['no project', `https://${PK}@errors.example.com/`],
    ['another scheme', `ftp://${PK}@errors.example.com/42`],
    ['not a URL', 'hello'],
    ['empty', ''],
  ])('refuses %s', (_name, dsn) => {
    expect(parseDsn(dsn)).toBeUndefined();
  });
});
