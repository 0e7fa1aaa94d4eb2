/**
 * One outcome per envelope item, from a closed union (as Relay's `Outcome` and `DiscardReason` do):
 *
 * - `accepted`: the item is kept (an event, queued for the writer).
 * - `filtered` with a reason: accepted on the wire (the SDK sees 200) and dropped on purpose, e.g.
 *   `unsupported_item_type:transaction`; unknown item types get `unknown_item_type`.
 * - `rate_limited` with the quota's code.
 * - `invalid` with a reason from INVALID_REASONS; written `invalid:<reason>` in logs and counters.
 *
 * Which items are kept: `event` items (and `/store/` bodies whose event type is an error or default event).
 * Everything else is accepted and dropped: we store errors only. `client_report` items are dropped too, but
 * the endpoint records their counts first (see parse-client-report.ts).
 */
import { isSvcError } from '../../core/errors.ts';
import type { DataCategory } from './data-category.ts';
import type { EnvelopeItem } from './parse-envelope.ts';

export const ITEM_TYPES = [
  'event', 'transaction', 'attachment', 'session', 'sessions', 'client_report', 'user_report', 'feedback',
  'check_in', 'replay_event', 'replay_recording', 'profile', 'profile_chunk', 'span', 'log',
] as const;
export type ItemType = (typeof ITEM_TYPES)[number];
export type DroppedItemType = Exclude<ItemType, 'event'>;

export const INVALID_REASONS = [
  'invalid_envelope', 'invalid_event', 'invalid_event_id', 'invalid_compression', 'event_too_large',
  'envelope_too_large', 'empty_payload', 'invalid_client_report',
] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

/**
 * The quotas, plus refusals with a 503 that are not quotas: the writer's queue is full (backpressure), the database
 * is unreachable and the node's journal is full, the shared counters are unreachable (the limits cannot be
 * checked, so nothing is let through unmetered), or the node holds as many request bodies as its inflate budget
 * allows.
 */
export const RATE_LIMIT_REASONS = ['project_events_per_minute', 'team_errors_events', 'ingest_queue_full', 'journal_full', 'counters_unavailable', 'ingest_overloaded'] as const;
export type RateLimitReason = (typeof RATE_LIMIT_REASONS)[number];

export type FilterReason = `unsupported_item_type:${DroppedItemType}` | 'unknown_item_type';

export type ItemOutcome =
  | { outcome: 'accepted' }
  | { outcome: 'filtered'; reason: FilterReason }
  | { outcome: 'rate_limited'; reason: RateLimitReason }
  | { outcome: 'invalid'; reason: InvalidReason };

export type OutcomeLabel = 'accepted' | 'filtered' | 'rate_limited' | `invalid:${InvalidReason}`;

export interface ClassifiedItem {
  item: EnvelopeItem;
  /** The item's type, or 'unknown' for a type this list does not know. */
  type: ItemType | 'unknown';
  category: DataCategory;
  /** How much of the category the item counts for: bytes for attachments, item_count or 1 otherwise. */
  quantity: number;
  /** True only for the item the writer should receive. */
  keep: boolean;
  outcome: ItemOutcome;
}

const CATEGORY = {
  event: 'error',
  transaction: 'transaction',
  attachment: 'attachment',
  session: 'session',
  sessions: 'session',
  client_report: 'internal',
  user_report: 'user_report_v2',
  feedback: 'feedback',
  check_in: 'monitor',
  replay_event: 'replay',
  replay_recording: 'replay',
  profile: 'profile',
  profile_chunk: 'profile_chunk',
  span: 'span',
  log: 'log_item',
} as const satisfies Record<ItemType, DataCategory>;

const KNOWN_TYPES = new Set<string>(ITEM_TYPES);
const KNOWN_INVALID = new Set<string>(INVALID_REASONS);

export function isItemType(value: string): value is ItemType {
  return KNOWN_TYPES.has(value);
}

function isInvalidReason(value: string): value is InvalidReason {
  return KNOWN_INVALID.has(value);
}

export const ACCEPTED: ItemOutcome = Object.freeze({ outcome: 'accepted' });

/** The outcome and category of one envelope item, before any rate limit is applied. */
export function classifyItem(item: EnvelopeItem): ClassifiedItem {
  const type = isItemType(item.headers.type) ? item.headers.type : 'unknown';
  const category: DataCategory = type === 'unknown' ? 'unknown' : CATEGORY[type];
  const quantity = type === 'attachment' ? item.payload.length : (item.headers.item_count ?? 1);
  if (type === 'event') {
    if (item.payload.length === 0) return { item, type, category, quantity, keep: false, outcome: invalid('empty_payload') };
    return { item, type, category, quantity, keep: true, outcome: ACCEPTED };
  }
  const reason: FilterReason = type === 'unknown' ? 'unknown_item_type' : `unsupported_item_type:${type}`;
  return { item, type, category, quantity, keep: false, outcome: { outcome: 'filtered', reason } };
}

/** Classify every item of an envelope, in order: one outcome each. */
export function classifyItems(items: readonly EnvelopeItem[]): ClassifiedItem[] {
  return items.map(classifyItem);
}

/**
 * The outcome of a `/store/` body, from the event's own `type` field: error and default events (or no type)
 * are kept; a transaction is filtered like a transaction item; other types are filtered as unknown.
 */
export function classifyStoreEvent(event: unknown): { keep: boolean; category: DataCategory; outcome: ItemOutcome } {
  const type = typeof event === 'object' && event !== null && !Array.isArray(event) ? (event as Record<string, unknown>).type : undefined;
  if (type === undefined || type === null || type === 'error' || type === 'default') {
    return { keep: true, category: type === 'default' ? 'default' : 'error', outcome: ACCEPTED };
  }
  if (type === 'transaction') return { keep: false, category: 'transaction', outcome: { outcome: 'filtered', reason: 'unsupported_item_type:transaction' } };
  return { keep: false, category: 'unknown', outcome: { outcome: 'filtered', reason: 'unknown_item_type' } };
}

export function invalid(reason: InvalidReason): ItemOutcome {
  return { outcome: 'invalid', reason };
}

export function rateLimited(reason: RateLimitReason): ItemOutcome {
  return { outcome: 'rate_limited', reason };
}

/** The invalid outcome for an error raised while reading an item: its code when it is one of ours, else invalid_event. */
export function invalidFromError(e: unknown): ItemOutcome {
  if (isSvcError(e) && isInvalidReason(e.code)) return invalid(e.code);
  return invalid('invalid_event');
}

/** The outcome of a refused body: ingest_overloaded is rate_limited, an invalid reason invalid; else none. */
export function outcomeFromError(e: unknown): ItemOutcome | undefined {
  if (!isSvcError(e)) return undefined;
  if (e.code === 'ingest_overloaded') return rateLimited('ingest_overloaded');
  return isInvalidReason(e.code) ? invalid(e.code) : undefined;
}

/** `accepted`, `filtered`, `rate_limited` or `invalid:<reason>`. */
export function outcomeLabel(o: ItemOutcome): OutcomeLabel {
  return o.outcome === 'invalid' ? `invalid:${o.reason}` : o.outcome;
}
