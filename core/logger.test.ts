import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, withoutRedaction } from './logger.ts';

describe('logger', () => {
  it('never writes credentials, secrets or query strings', () => {
    let out = '';
    const sink = new Writable({ write: (chunk, _enc, cb) => ((out += chunk), cb()) });
    const log = createLogger('info', sink);
    log.info({ req: { id: '1', method: 'GET', url: '/v1beta/models?key=sk-svc-secret1', headers: {} } }, 'request');
    log.info({ req: { headers: { authorization: 'Bearer tk_secret2', 'x-api-key': 'sk-svc-secret3', cookie: 'svc_session=ses_secret4' } } }, 'raw');
    log.info({ account: { api_key: 'sk-ant-secret5', password: 'secret6', token: 'secret7' } }, 'nested');
    log.info({ api_key: 'sk-secret8', refresh_token: 'secret9' }, 'top level');
    for (const s of ['secret1', 'secret2', 'secret3', 'secret4', 'secret5', 'secret6', 'secret7', 'secret8', 'secret9']) expect(out).not.toContain(s);
    expect(out).toContain('/v1beta/models');
  });

  it('without redaction keeps the level, the serializers and the destination, and leaves the parent redacting', () => {
    let out = '';
    const sink = new Writable({ write: (chunk, _enc, cb) => ((out += chunk), cb()) });
    const log = createLogger('warn', sink);
    const plain = withoutRedaction(log);
    plain.info({ status: 200 }, 'below the level');
    plain.warn({ req: { id: '1', method: 'GET', url: '/v1/models?key=sk-svc-secret1' }, token_id: 'tk_1' }, 'request');
    log.warn({ password: 'secret2' }, 'parent');
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(['request', 'parent']);
    // The req serializer still drops the query string.
    expect(lines[0].req).toEqual({ id: '1', method: 'GET', path: '/v1/models' });
    expect(lines[0].token_id).toBe('tk_1');
    expect(lines[1].password).toBe('[redacted]');
    expect(out).not.toContain('secret');
  });
});
