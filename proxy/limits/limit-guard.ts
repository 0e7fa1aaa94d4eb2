/**
 * The one place where limits and budgets hook into a gateway call (DESIGN.md §3, step 3).
 *
 * `admit` runs after the key, the model permission and the model resolution, before any upstream call; it refuses
 * by throwing a SvcError (e.g. 429 `key_requests_per_minute` with Retry-After, 403 `key_tokens_per_month`), which
 * the route answers in the caller's style. The ticket it returns is settled exactly once with the call's usage
 * record, after the answer is complete (or failed, or the client went away), to release reservations and count
 * what was really used.
 *
 * The default guard admits everything; the limits feature replaces it (Gateway option `limits`).
 */
import type { GatewayKey } from '../keys/key-store.ts';
import type { StyleName } from '../../translators/model.ts';
import type { UsageRecord } from '../metering/usage-record.ts';
import type { CollectedStream } from '../../translators/collect-stream.ts';

export interface AdmitRequest {
  key: GatewayKey;
  /** The model as the client asked for it (may be an alias). */
  model: string;
  /** The models the call may be served by, in order. */
  candidates: readonly string[];
  clientStyle: StyleName;
  stream: boolean;
  /** A cheap estimate of the prompt size (bytes of the request body / 4), for reservations. */
  estimatedInputTokens: number;
  /** The parsed request body (the reservation reads its max output tokens). */
  body: Readonly<Record<string, unknown>>;
  /** The request body as received (kept when the key logs call bodies). */
  raw: Buffer;
}

/**
 * What the client got, for call-body logging: a whole answer (or refusal) as sent, or a stream collected into
 * one reply (only collected when the key logs bodies).
 */
export type CallAnswer = { body: string | Buffer } | { stream: CollectedStream };

export interface LimitTicket {
  settle(record: UsageRecord, answer?: CallAnswer): void;
}

export interface LimitGuard {
  admit(req: AdmitRequest): Promise<LimitTicket> | LimitTicket;
}

const NOTHING: LimitTicket = { settle: () => {} };

export const noLimits: LimitGuard = { admit: () => NOTHING };
