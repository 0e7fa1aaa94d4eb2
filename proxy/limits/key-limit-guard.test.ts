/**
 * The guard's refusals when the counters cannot answer (fail closed for metered keys, unmetered keys untouched),
 * in each caller style, without any Redis: a Redis client pointed at a closed port, and a store that hangs.
 */
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheBus } from '../../core/cache.ts';
import { systemClock } from '../../core/clock.ts';
import type { AppContext } from '../../core/context.ts';
import { MemoryCounters } from '../../core/counters/memory-counters.ts';
import type { Db } from '../../core/db/db.ts';
import { isSvcError, type SvcError } from '../../core/errors.ts';
import type { LimitStore } from '../../core/limits/limit-store.ts';
import { RedisLimitStore } from '../../core/limits/redis-limit-store.ts';
import { ServerTime } from '../../core/limits/server-time.ts';
import { createLogger } from '../../core/logger.ts';
import { styleErrorResponse } from '../http/style-error.ts';
import { toGatewayKey } from '../keys/key-store.ts';
import { BudgetAlerts } from './budget-alerts.ts';
import { CallBodyWriter } from './call-body-writer.ts';
import { KeyLimitGuard } from './key-limit-guard.ts';
import type { AdmitRequest } from './limit-guard.ts';
import { LimitBatcher } from './limit-batcher.ts';
import { SpendSeeder } from './spend-seeder.ts';

const log = createLogger('silent');
const db = { query: async () => ({ rows: [] }) } as unknown as Db;
const counters = new MemoryCounters(systemClock);
const ctx = { db, counters, caches: new CacheBus(counters), log, clock: systemClock } as unknown as AppContext;
const clients: Redis[] = [];
afterAll(() => clients.forEach((c) => c.disconnect()));

function guardOn(store: LimitStore, reserveTimeoutMs?: number): KeyLimitGuard {
  return new KeyLimitGuard(ctx, {
    store, time: new ServerTime(systemClock, counters), seeder: new SpendSeeder(db, store, log), alerts: new BudgetAlerts(ctx),
    bodies: new CallBodyWriter(db, log), batcher: new LimitBatcher(store, log, undefined, reserveTimeoutMs), reserveTimeoutMs,
  });
}

function request(limits: Record<string, number>): AdmitRequest {
  const key = toGatewayKey({ id: 'key_1', team_id: 'team_1', owner_user_id: null, name: 'k', allowed_models: [], limits, log_bodies: 'off' });
  const body = { model: 'gpt-4o-mini', max_tokens: 10, messages: [] };
  return { key, model: 'gpt-4o-mini', candidates: ['gpt-4o-mini'], clientStyle: 'chat', stream: false, estimatedInputTokens: 10, body, raw: Buffer.from(JSON.stringify(body)) };
}

async function refusal(p: unknown): Promise<SvcError> {
  const e = await Promise.resolve(p).then(() => undefined, (err: unknown) => err);
  if (!isSvcError(e)) throw new Error(`expected a refusal, got ${String(e)}`);
  return e;
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('counters unavailable', () => {
  it('refuses metered calls with 503 counters_unavailable in the caller style, and admits unmetered ones', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: await closedPort(), enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    clients.push(redis);
    const guard = guardOn(new RedisLimitStore(redis, 'down:'));
    const e = await refusal(guard.admit(request({ requests_per_minute: 5 })));
    expect(e.code).toBe('counters_unavailable');
    expect(e.status).toBe(503);
    expect(e.headers['retry-after']).toBe('1');
    const chat = styleErrorResponse('chat', e);
    expect(chat.status).toBe(503);
    expect(JSON.parse(chat.body).error).toMatchObject({ code: 'counters_unavailable', message: expect.stringContaining('refused rather than let through unmetered') });
    const messages = styleErrorResponse('messages', e);
    expect(JSON.parse(messages.body)).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.stringContaining('limit counters') } });
    expect(JSON.parse(styleErrorResponse('generative', e).body).error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    // Budgets too.
    expect((await refusal(guard.admit(request({ dollars_per_month: 5 })))).code).toBe('counters_unavailable');
    // A key without limits (and a team without ai.tokens) needs no counters.
    const ticket = await guard.admit(request({}));
    expect(typeof ticket.settle).toBe('function');
  });

  it('treats counters that do not answer in time as unavailable', async () => {
    const hanging: LimitStore = {
      reserve: () => new Promise(() => {}),
      reserveMany: () => new Promise(() => {}),
      settle: () => new Promise(() => {}),
      settleMany: () => new Promise(() => {}),
      exchange: () => new Promise(() => {}),
      spend: () => new Promise(() => {}),
      requests: () => new Promise(() => {}),
      seed: async () => {},
      ready: async () => true,
      lossCount: () => 0,
    };
    const t0 = Date.now();
    const e = await refusal(guardOn(hanging, 100).admit(request({ tokens_per_month: 1000 })));
    expect(e.code).toBe('counters_unavailable');
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
