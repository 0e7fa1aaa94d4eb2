/**
 * The node's compression parts (settings source, record writer), one per gateway, and the per-call handle the
 * routes attach to a call: it lets the request preparer read the settings, name the outcome on the answer
 * (`X-Svc-Compression`, set on the response before its head is written) and run work once the answer is complete
 * (audit-only compresses after the answer, off the request path; issue 13 point 3), and the node's summaries of
 * oldest turns (summary-store.ts), made after answers and used by later turns.
 */
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../core/context.ts';
import type { CompressionSettings } from '../../core/ai/compression-settings.ts';
import type { UsageCompression } from '../metering/usage-record.ts';
import { CompressionRecords, type CompressionRecord } from './compression-records.ts';
import { SettingsSource } from './settings-source.ts';
import { SummaryStore } from './summary-store.ts';

export const COMPRESSION_ANSWER_HEADER = 'x-svc-compression';

export class CompressionService {
  readonly settings: SettingsSource;
  readonly records: CompressionRecords;
  readonly summaries: SummaryStore;

  constructor(ctx: AppContext) {
    this.settings = new SettingsSource(ctx);
    this.records = new CompressionRecords(ctx);
    this.summaries = new SummaryStore(ctx);
  }

  forCall(res: ServerResponse): CallCompression {
    return new CallCompression(this, res);
  }
}

export class CallCompression {
  #service: CompressionService;
  #res: ServerResponse;
  /** What the compressor did to the attempt last prepared, for the call's usage record; undefined: nothing (off). */
  outcome: UsageCompression | undefined;

  constructor(service: CompressionService, res: ServerResponse) {
    this.#service = service;
    this.#res = res;
  }

  settings(): CompressionSettings {
    return this.#service.settings.current();
  }

  get summaries(): SummaryStore {
    return this.#service.summaries;
  }

  /** Names the outcome on the answer (undefined: the attempt did not go through the compressor). */
  answerHeader(value: string | undefined): void {
    if (this.#res.headersSent) return;
    if (value === undefined) this.#res.removeHeader(COMPRESSION_ANSWER_HEADER);
    else this.#res.setHeader(COMPRESSION_ANSWER_HEADER, value);
  }

  /** The answer went out as a success (a failed call's history is not worth a summary). */
  get answeredOk(): boolean {
    return this.#res.statusCode < 400;
  }

  /** Runs `work` on a later turn of the event loop once the answer is complete (or the client has gone). */
  afterAnswer(work: () => void): void {
    this.#res.once('close', () => setImmediate(work));
  }

  record(row: CompressionRecord): void {
    this.#service.records.add(row);
  }
}

const services = new WeakMap<AppContext, CompressionService>();

/** The compression parts of the node whose context this is (created on first use). */
export function compressionOf(ctx: AppContext): CompressionService {
  let s = services.get(ctx);
  if (!s) {
    s = new CompressionService(ctx);
    services.set(ctx, s);
  }
  return s;
}
