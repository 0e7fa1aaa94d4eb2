/**
 * Error-ingest outcomes: every item an endpoint sees for a known project, by outcome (`accepted`, `filtered`,
 * `rate_limited`, `invalid`, `client_discard`), reason and data category, counted where ingest counts them for
 * the database (ingest/outcome-counter.ts). Ingest's own reasons and categories are closed lists; the reasons SDKs
 * report for what they discarded themselves are free text, so only the ones Sentry's SDKs define are kept.
 * @see https://develop.sentry.dev/sdk/telemetry/client-reports/
 */
import { CounterFamily, type CounterCell } from './metric-families.ts';
import { OTHER } from './model-labels.ts';

const SDK_DISCARD_REASONS: ReadonlySet<string> = new Set([
  'queue_overflow', 'cache_overflow', 'buffer_overflow', 'ratelimit_backoff', 'network_error', 'sample_rate',
  'before_send', 'event_processor', 'send_error', 'internal_sdk_error', 'insufficient_data', 'backpressure',
]);
/** A guard on top of the closed lists: ingest's categories × reasons stay far below it. */
const MAX_SERIES = 2_000;

export class IngestMetrics {
  readonly outcomes = new CounterFamily('svc_ingest_outcomes_total', 'Error-ingest items by outcome, reason (empty when accepted) and data category.', ['outcome', 'reason', 'category']);
  #cells = new Map<string, CounterCell>();

  outcome(outcome: string, reason: string, category: string, quantity: number): void {
    const r = outcome === 'client_discard' && !SDK_DISCARD_REASONS.has(reason) ? OTHER : reason;
    const key = `${outcome}\u0000${r}\u0000${category}`;
    let cell = this.#cells.get(key);
    if (cell === undefined) {
      cell = this.#cells.size < MAX_SERIES ? this.outcomes.cell(outcome, r, category) : this.outcomes.cell(OTHER, OTHER, OTHER);
      this.#cells.set(key, cell);
    }
    cell.value += quantity;
  }

  families(): CounterFamily[] {
    return [this.outcomes];
  }
}
