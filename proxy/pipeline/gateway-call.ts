/**
 * One client call as the routes hand it to the pipeline: who calls (key), in which style, for which model, with
 * which body (the raw bytes, kept for a same-style passthrough, and the parsed object).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StyleName } from '../../translators/model.ts';
import type { GatewayKey } from '../keys/key-store.ts';
import type { CallCompression } from '../compression/compression-service.ts';
import type { RequestFacts } from '../../core/http/request-observer.ts';

export interface GatewayCall {
  clientStyle: StyleName;
  op: 'generate' | 'count';
  key: GatewayKey;
  /** The model as the client asked for it (an id or an alias name). */
  model: string;
  stream: boolean;
  /** Generative-language stream without `alt=sse`: the answer is one JSON array sent in pieces. */
  jsonArray: boolean;
  /** chat: the client asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  raw: Buffer;
  body: Record<string, unknown>;
  /** What the route itself dropped from the request, sent with the answer as `X-Svc-Warning` (responses `store`). */
  warnings?: readonly string[];
  headers: IncomingHttpHeaders;
  /** performance.now() when the request arrived. */
  startedAt: number;
  at: Date;
  /** Compression settings and the answer's outcome header (proxy/compression/); absent = never compressed. */
  compression?: CallCompression;
  /** The request log line's facts, when this request is logged (core/http/request-observer.ts). */
  facts?: RequestFacts | null;
}
