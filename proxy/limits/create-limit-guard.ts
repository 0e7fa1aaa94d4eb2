/**
 * Builds the gateway's limit guard for a node (server/features.ts passes it to createGateway): the limit store
 * that matches the counters, the shared clock, the spend seeder, budget alerts and the call-body writer.
 * `start()` measures the clock offset (and every minute after); `drain()` writes queued call bodies and stops.
 */
import { join } from 'node:path';
import type { AppContext } from '../../core/context.ts';
import { createLimitStore } from '../../core/limits/create-limit-store.ts';
import { ServerTime } from '../../core/limits/server-time.ts';
import { BudgetAlerts } from './budget-alerts.ts';
import { CallBodyWriter, type CallBodyWriterOptions } from './call-body-writer.ts';
import { KeyLimitGuard } from './key-limit-guard.ts';
import { LimitBatcher } from './limit-batcher.ts';
import { SpendSeeder } from './spend-seeder.ts';
import { TurnFlush } from './turn-flush.ts';

export interface Limits {
  guard: KeyLimitGuard;
  time: ServerTime;
  alerts: BudgetAlerts;
  bodies: CallBodyWriter;
  batcher: LimitBatcher;
  start(): Promise<void>;
  drain(): Promise<void>;
}

export function createLimits(ctx: AppContext, opts: { bodies?: CallBodyWriterOptions; reserveTimeoutMs?: number } = {}): Limits {
  const store = createLimitStore(ctx.counters, ctx.clock);
  const time = new ServerTime(ctx.clock, ctx.counters);
  const alerts = new BudgetAlerts(ctx);
  const bodies = new CallBodyWriter(ctx.db, ctx.log, {
    journal: { dir: join(ctx.config.dataDir, 'journal', 'call-bodies'), maxBytes: ctx.config.journalMaxBytes },
    ...opts.bodies,
  });
  const seeder = new SpendSeeder(ctx.db, store, ctx.log);
  // One flush per round of I/O for reserves and settles: one script per team and month. A settle the store could
  // not take has its usage in the records: the key (and team) are seeded again.
  const batcher = new LimitBatcher(store, ctx.log, new TurnFlush(), opts.reserveTimeoutMs, (s) => seeder.forget(s.keyId, s.teamId, false));
  const guard = new KeyLimitGuard(ctx, { store, time, seeder, alerts, bodies, batcher, reserveTimeoutMs: opts.reserveTimeoutMs });
  return {
    guard, time, alerts, bodies, batcher,
    start: async () => {
      if (!(await store.ready())) ctx.log.warn('the limit counters are not reachable at start; metered calls are refused until they are');
      await time.start();
      if (time.measuredAt === 0) ctx.log.warn('the counters clock could not be read at start; months use this node\'s clock until the next try');
    },
    drain: async () => {
      time.stop();
      await batcher.drain();
      await Promise.allSettled([...alerts.pending]);
      await bodies.drain();
    },
  };
}
