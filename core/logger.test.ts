import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

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
});
