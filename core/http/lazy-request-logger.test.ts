import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { createApp } from './create-app.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(...String(chunk).trim().split('\n').map((l) => JSON.parse(l))), cb()) });
  return { log: createLogger(level, sink), lines };
}

describe('the per-request logger', () => {
  it('binds the request id when a request logs, and logs nothing for a request that does not', async () => {
    const { log, lines } = capture('info');
    const app = createApp({ log, bodyLimit: 1024 });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (req) => {
      req.log.info({ secret: 'x' }, 'handling');
      req.log.debug('below the level');
      req.log.child({ part: 'inner' }).warn('from a child');
      return { ok: true };
    });
    await app.inject({ method: 'GET', url: '/quiet' });
    expect(lines).toHaveLength(0);
    const res = await app.inject({ method: 'GET', url: '/loud' });
    expect(res.statusCode).toBe(200);
    expect(lines.map((l) => l.msg)).toEqual(['handling', 'from a child']);
    expect(lines[0].reqId).toBeTruthy();
    expect(lines[1]).toMatchObject({ reqId: lines[0].reqId, part: 'inner', level: 40 });
    expect(JSON.stringify(lines)).not.toContain('"secret":"x"');
    await app.close();
  });

  it('writes debug lines when the level allows them', async () => {
    const { log, lines } = capture('debug');
    const app = createApp({ log, bodyLimit: 1024 });
    app.get('/d', async (req) => (req.log.debug('detail'), { ok: true }));
    await app.inject({ method: 'GET', url: '/d' });
    expect(lines.filter((l) => l.msg === 'detail')).toHaveLength(1);
    expect(lines.find((l) => l.msg === 'detail')?.reqId).toBeTruthy();
    await app.close();
  });
});
