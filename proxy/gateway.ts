/**
 * The gateway's long-lived parts, created once per node: key lookups, routing data, account choice, limits,
 * upstream pools and the usage writer. Routes receive this object; nothing here is per request.
 */
import { join } from 'node:path';
import type { AppContext } from '../core/context.ts';
import { LookupCache } from '../core/cache.ts';
import { PRICES_CACHE } from '../core/ai/cache-names.ts';
import { readPriceOverrides } from '../core/ai/price-overrides.ts';
import type { PriceOverride } from '../core/ai/price-of.ts';
import { KeyStore } from './keys/key-store.ts';
import { noLimits, type LimitGuard } from './limits/limit-guard.ts';
import type { AccountPicker } from './accounts/account-picker.ts';
import { RoutingTable } from './accounts/routing-table.ts';
import { tokenManagerOf } from '../core/ai/subscriptions/token-manager.ts';
import { QuotaPicker } from './rotation/quota-picker.ts';
import { buildSubscriptionAccount } from './subscriptions/subscription-account.ts';
import { Dispatchers } from './upstream/dispatchers.ts';
import { UsageWriter, type UsageWriterOptions } from './metering/usage-writer.ts';

export interface GatewayOptions {
  picker?: AccountPicker;
  limits?: LimitGuard;
  usage?: UsageWriterOptions;
  /** The node's id: the owner of its open calls (proxy/metering/open-call.ts). */
  nodeId?: string;
}

export interface Gateway {
  ctx: AppContext;
  keys: KeyStore;
  routing: RoutingTable;
  picker: AccountPicker;
  limits: LimitGuard;
  usage: UsageWriter;
  dispatchers: Dispatchers;
  /** The instance's price overrides (cached, then without a promise; invalidated by the control plane). */
  prices(): readonly PriceOverride[] | Promise<readonly PriceOverride[]>;
  /** Writes queued usage and closes upstream pools (after the server stopped accepting). */
  drain(): Promise<void>;
}

export function createGateway(ctx: AppContext, opts: GatewayOptions = {}): Gateway {
  const dispatchers = new Dispatchers({ timeoutMs: ctx.config.upstreamTimeoutMs });
  const prices = ctx.caches.register(new LookupCache<readonly PriceOverride[]>(PRICES_CACHE, 60_000));
  const usage = new UsageWriter(ctx.db, ctx.log, {
    maxQueued: ctx.config.usageMaxQueued,
    journal: { dir: join(ctx.config.dataDir, 'journal', 'usage'), maxBytes: ctx.config.journalMaxBytes },
    openCalls: { nodeId: opts.nodeId, leaseMs: ctx.config.openCallLeaseMs },
    retentionDays: ctx.config.usageRetentionDays,
    ...opts.usage,
  });
  // /healthz: a node whose usage backlog is full refuses every call (usage_backlog), so it does not keep requests.
  ctx.health.add('usage_journal', () => ({ ok: !usage.full, queued: usage.queued }), { keepsRequests: true });
  const picker = opts.picker ?? new QuotaPicker(ctx);
  return {
    ctx,
    keys: new KeyStore(ctx),
    routing: new RoutingTable(ctx, dispatchers, (row) => buildSubscriptionAccount(row, { ctx, dispatchers, tokens: tokenManagerOf(ctx) })),
    picker,
    limits: opts.limits ?? noLimits,
    usage,
    dispatchers,
    prices: () => prices.peek('all') ?? prices.get('all', () => readPriceOverrides(ctx.db)),
    drain: async () => {
      await usage.drain();
      if (picker instanceof QuotaPicker) await picker.flush();
      await dispatchers.close();
    },
  };
}
