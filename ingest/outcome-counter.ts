/**
 * Item outcomes aggregated in memory per (project, hour, outcome, reason, category) and written with the writer's
 * batches as `quantity = quantity + n` upserts into ingest_outcomes. Every item the endpoints see for a known
 * project is counted exactly once here (item-outcome.ts has the closed union). What SDKs report they dropped
 * themselves (client_report items) is counted as outcome `client_discard` with the SDK's reason.
 *
 * A flush takes the counts out; when its transaction fails they are put back, so a count is never lost or doubled.
 */
import type { DataCategory } from './lib/data-category.ts';
import type { ItemOutcome } from './lib/item-outcome.ts';
import type { IngestMetrics } from '../core/metrics/ingest-metrics.ts';

export interface OutcomeRow {
  projectId: number;
  /** Start of the UTC hour, in ms. */
  hour: number;
  outcome: string;
  reason: string;
  category: string;
  quantity: number;
}

const HOUR_MS = 3_600_000;

export class OutcomeCounter {
  #rows = new Map<string, OutcomeRow>();
  /** The node's metrics (counted as items arrive; a flush put back is not counted again). */
  #metrics: IngestMetrics | undefined;

  constructor(metrics?: IngestMetrics) {
    this.#metrics = metrics;
  }

  /** Count one item's outcome. */
  add(projectId: number, at: number, outcome: ItemOutcome, category: DataCategory, quantity = 1): void {
    const reason = outcome.outcome === 'accepted' ? '' : outcome.reason;
    this.#add({ projectId, hour: hourOf(at), outcome: outcome.outcome, reason, category, quantity });
    if (quantity > 0) this.#metrics?.outcome(outcome.outcome, reason, category, quantity);
  }

  /** Count what an SDK reported it discarded (from a client_report item). */
  addClientDiscard(projectId: number, at: number, reason: string, category: DataCategory, quantity: number): void {
    this.#add({ projectId, hour: hourOf(at), outcome: 'client_discard', reason, category, quantity });
    if (quantity > 0) this.#metrics?.outcome('client_discard', reason, category, quantity);
  }

  get size(): number {
    return this.#rows.size;
  }

  /** Takes every pending count out (sorted, so that concurrent upserts lock rows in one order). */
  take(): OutcomeRow[] {
    const rows = [...this.#rows.values()];
    this.#rows.clear();
    return rows.sort(compareRows);
  }

  /** Puts counts back after a failed flush. */
  putBack(rows: readonly OutcomeRow[]): void {
    for (const r of rows) this.#add({ ...r });
  }

  /** The pending count of one key (for tests and metrics). */
  pending(projectId: number, outcome: string, reason = ''): number {
    let n = 0;
    for (const r of this.#rows.values()) if (r.projectId === projectId && r.outcome === outcome && r.reason === reason) n += r.quantity;
    return n;
  }

  #add(row: OutcomeRow): void {
    if (!(row.quantity > 0)) return;
    const key = `${row.projectId}\u0000${row.hour}\u0000${row.outcome}\u0000${row.reason}\u0000${row.category}`;
    const prev = this.#rows.get(key);
    if (prev) prev.quantity += row.quantity;
    else this.#rows.set(key, row);
  }
}

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

function compareRows(a: OutcomeRow, b: OutcomeRow): number {
  return a.projectId - b.projectId || a.hour - b.hour || cmp(a.outcome, b.outcome) || cmp(a.reason, b.reason) || cmp(a.category, b.category);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
