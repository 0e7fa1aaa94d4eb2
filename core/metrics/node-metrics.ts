/**
 * A node's metrics (docs/metrics.md): one prom-client Registry with the process metrics (CPU, memory, event-loop
 * delay, GC), the database pool, the writers, and the families the surfaces feed: HTTP requests, gateway calls,
 * ingest outcomes. Rendered on GET /metrics; each node answers for itself.
 *
 * With SVC_METRICS=off, `enabled` is false: the surfaces skip their observations (the families stay empty) and
 * /metrics is not mounted.
 */
import { Gauge, Registry } from 'prom-client';
import type { Db } from '../db/db.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import { HttpMetrics } from './http-metrics.ts';
import { IngestMetrics } from './ingest-metrics.ts';
import { ModelLabels } from './model-labels.ts';
import { registerProcessMetrics } from './process-metrics.ts';
import { registerWriterMetrics } from './writer-metrics.ts';

export class NodeMetrics {
  readonly enabled: boolean;
  readonly registry = new Registry();
  readonly models = new ModelLabels();
  readonly http = new HttpMetrics();
  readonly gateway = new GatewayMetrics(this.models);
  readonly ingest = new IngestMetrics();

  constructor(opts: { enabled: boolean; db?: Db }) {
    this.enabled = opts.enabled;
    if (!this.enabled) return;
    registerProcessMetrics(this.registry);
    for (const f of [...this.http.families(), ...this.gateway.families(), ...this.ingest.families()]) this.registry.registerMetric(f as never);
    registerWriterMetrics(this.registry);
    const db = opts.db;
    if (db?.poolStats) {
      const stats = db.poolStats.bind(db);
      new Gauge({
        name: 'svc_db_pool_connections', help: 'Postgres pool connections by state (open, idle, waiting clients, max).', labelNames: ['state'], registers: [this.registry],
        collect() {
          const s = stats();
          this.set({ state: 'open' }, s.total);
          this.set({ state: 'idle' }, s.idle);
          this.set({ state: 'waiting' }, s.waiting);
          this.set({ state: 'max' }, s.max);
        },
      });
    }
  }

  /** The text format (prom-client renders it). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
