/** An event the fast path acknowledged, waiting for the writer: the parsed payload and what came with it. */
import type { IngestProject } from '../project-lookup.ts';

export interface QueuedEvent {
  project: IngestProject;
  /** 32 lowercase hex: the id the client was answered with (envelope header, payload, or generated). */
  eventId: string;
  /** The event payload as parsed JSON (an object). */
  payload: Record<string, unknown>;
  /** Receive time in ms (the node's clock). */
  receivedAt: number;
  /** The envelope header sent_at, for clock-drift correction. */
  sentAt?: string;
  /** The connection's IP (used only when the SDK asked for `{{auto}}`, for the people hash). */
  clientIp?: string;
  /** Payload size in bytes (set by the queue). */
  bytes: number;
}
