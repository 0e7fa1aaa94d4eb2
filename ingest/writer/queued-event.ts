/**
 * An event the fast path acknowledged, waiting for the writer: its JSON bytes (already checked to be an object)
 * and what came with it. Bytes rather than the parsed object: they stay off the JS heap while queued and go to the
 * preparing worker thread as they are.
 */
import type { IngestProject } from '../project-lookup.ts';
import type { ReadyEvent } from './prepare-batch.ts';

export interface QueuedEvent {
  project: IngestProject;
  /** 32 lowercase hex: the id the client was answered with (envelope header, payload, or generated). */
  eventId: string;
  /** The event payload: JSON of an object. */
  payload: Buffer;
  /** Receive time in ms (the node's clock). */
  receivedAt: number;
  /** The envelope header sent_at, for clock-drift correction. */
  sentAt?: string;
  /** The connection's IP (used only when the SDK asked for `{{auto}}`, for the people hash). */
  clientIp?: string;
  /** Payload size in bytes (set by the queue). */
  bytes: number;
  /**
   * The event prepared on the thread that parsed it at the fast path (admit-event.ts), so it is parsed once. Kept
   * in memory only: an event replayed from the journal or claimed from the inbox is prepared again from `payload`.
   */
  prepared?: ReadyEvent;
}
