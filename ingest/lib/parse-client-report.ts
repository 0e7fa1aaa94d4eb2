/**
 * `client_report` items: what an SDK dropped on its side (rate-limit backoff, full queue, sampling,
 * before_send…), sent later so that the server can count it.
 *
 * ```json
 * {"timestamp":"2024-05-06T07:08:09Z","discarded_events":[{"reason":"ratelimit_backoff","category":"error","quantity":3}]}
 * ```
 *
 * Only `discarded_events` is read (what current SDKs send). Entries with an unreadable reason, or a quantity
 * that is not a positive integer, are skipped; an unknown category becomes `unknown`; equal (reason, category)
 * pairs are summed. A report that is not JSON gives undefined: the item is dropped either way, and a bad
 * report never fails the envelope.
 * @see https://develop.sentry.dev/sdk/telemetry/client-reports/
 */
import { isDataCategory, type DataCategory } from './data-category.ts';
import { parseTimestamp } from './parse-timestamp.ts';

export interface DiscardedCount {
  reason: string;
  category: DataCategory;
  quantity: number;
}

export interface ClientReport {
  timestamp?: Date;
  discarded: DiscardedCount[];
}

const REASON = /^[a-z0-9_.:-]{1,64}$/;
const MAX_ENTRIES = 100;
const MAX_QUANTITY = 1_000_000_000;

export function parseClientReport(payload: Buffer): ClientReport | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const raw = doc as Record<string, unknown>;
  const sums = new Map<string, DiscardedCount>();
  const entries = Array.isArray(raw.discarded_events) ? raw.discarded_events.slice(0, MAX_ENTRIES) : [];
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { reason, category, quantity } = entry as Record<string, unknown>;
    if (typeof reason !== 'string' || !REASON.test(reason.toLowerCase())) continue;
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity <= 0) continue;
    const cat: DataCategory = isDataCategory(category) ? category : 'unknown';
    const key = `${reason.toLowerCase()}\u0000${cat}`;
    const prev = sums.get(key);
    const total = Math.min((prev?.quantity ?? 0) + quantity, MAX_QUANTITY);
    sums.set(key, { reason: reason.toLowerCase(), category: cat, quantity: total });
  }
  const report: ClientReport = { discarded: [...sums.values()] };
  const ts = parseTimestamp(raw.timestamp);
  if (ts) report.timestamp = ts;
  return report;
}
