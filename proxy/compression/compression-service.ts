/**
 * The node's compression parts (settings source, record writer), one per gateway, and the per-call handle the
 * routes attach to a call: it lets the request preparer read the settings, name the outcome on the answer
 * (`X-Svc-Compression`, set on the response before its head is written) and run work once the answer is complete
 * (audit-only compresses after the answer, off the request path; issue 13 point 3).
 */
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../core/context.ts';
import type { CompressionSettings } from '../../core/ai/compression-settings.ts';
import { CompressionRecords, type CompressionRecord } from './compression-records.ts';
import { SettingsSource } from './settings-source.ts';

export const COMPRESSION_ANSWER_HEADER = 'x-svc-compression';

export class CompressionService {
  readonly settings: SettingsSource;
  readonly records: CompressionRecords;

  constructor(ctx: AppContext) {
    this.settings = new SettingsSource(ctx);
    this.records = new CompressionRecords(ctx);
  }

  forCall(res: ServerResponse): CallCompression {
    return new CallCompression(this, res);
  }
}

export class CallCompression {
  #service: CompressionService;
  #res: ServerResponse;

  constructor(service: CompressionService, res: ServerResponse) {
    this.#service = service;
    this.#res = res;
  }

  settings(): CompressionSettings {
    return this.#service.settings.current();
  }

  /** Names the outcome on the answer (undefined: the attempt did not go through the compressor). */
  answerHeader(value: string | undefined): void {
    if (this.#res.headersSent) return;
    if (value === undefined) this.#res.removeHeader(COMPRESSION_ANSWER_HEADER);
    else this.#res.setHeader(COMPRESSION_ANSWER_HEADER, value);
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
