/**
 * What happens when a request ends, on every route of every role: it is counted in the node's HTTP metrics and,
 * for the sampled share (SVC_REQUEST_LOG_SAMPLE), written as one `info` line:
 *
 *   {"level":30,"msg":"request","req_id":"…","method":"POST","route":"/v1/chat/completions","status":200,
 *    "duration_ms":12.3,"key":"…","team":"…","model":"gpt-4o-mini","upstream":"openai","bytes_in":245,"bytes_out":612}
 *
 * `route` is the registered path (`/api/v1/teams/:id`), never the URL, so no id, query string or key in a query
 * parameter reaches the log; no header and no body is logged. `key` (gateway key id), `token` (API token id, or
 * `admin` for SVC_ADMIN_TOKEN), `team`, `model` and `upstream` appear when the request knew them: surfaces fill
 * `req.logFacts` (the gateway does), which exists only for a request that will be logged.
 *
 * It is fastify's LogController (called once per request already, when the answer's last byte is written), so
 * it costs no hook. `bytes_out` is what the connection wrote meanwhile (headers included).
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import type { Logger } from '../logger.ts';
import type { HttpMetrics, RouteCells } from '../metrics/http-metrics.ts';

/** What a surface tells the request log about the request (ids only, never a secret). */
export interface RequestFacts {
  key?: string;
  team?: string;
  model?: string;
  upstream?: string;
  /** The connection's bytesWritten when the request arrived. */
  startBytesOut: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for a request that will be logged (surfaces add what they know); null otherwise. */
    logFacts: RequestFacts | null;
  }
}

export class RequestObserver extends LogController {
  #metrics: HttpMetrics | undefined;
  #log: Logger | undefined;
  #sample: number;
  #routes = new WeakMap<object, RouteCells>();

  /** metrics: undefined when off; log: undefined when request lines are off (sample 0 or info disabled). */
  constructor(opts: { metrics?: HttpMetrics; log?: Logger; sample: number }) {
    // fastify's own per-request lines stay off: this class writes the one line.
    super({ disableRequestLogging: true });
    this.#metrics = opts.metrics;
    this.#log = opts.log;
    this.#sample = opts.sample;
  }

  /** Whether it does anything at all (else fastify's plain controller is used). */
  get active(): boolean {
    return this.#metrics !== undefined || this.#log !== undefined;
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.#log === undefined || (this.#sample < 1 && Math.random() >= this.#sample)) return;
    request.logFacts = { startBytesOut: request.raw.socket?.bytesWritten ?? 0 };
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const metrics = this.#metrics;
    const facts = request.logFacts;
    if (metrics === undefined && facts === null) return;
    const config = request.routeOptions.config as { url?: string; style?: string };
    let cells = this.#routes.get(config);
    if (cells === undefined && metrics !== undefined) {
      cells = metrics.route(config.url, config.style);
      this.#routes.set(config, cells);
    }
    const durationMs = reply.elapsedTime;
    cells?.count(reply.statusCode, durationMs);
    if (facts !== null) this.#write(request, reply, facts, durationMs, config.url);
  }

  #write(request: FastifyRequest, reply: FastifyReply, facts: RequestFacts, durationMs: number, route: string | undefined): void {
    const p = (request as { principal?: Principal | null }).principal;
    const length = Number(request.headers['content-length']);
    const written = request.raw.socket?.bytesWritten;
    this.#log?.info(
      {
        req_id: request.id,
        method: request.method,
        route: route ?? null,
        status: reply.statusCode,
        duration_ms: Math.round(durationMs * 100) / 100,
        key: facts.key,
        token: p ? (p.via === 'admin_token' ? 'admin' : (p.tokenId ?? undefined)) : undefined,
        user: p?.userId ?? undefined,
        team: facts.team,
        model: facts.model,
        upstream: facts.upstream,
        bytes_in: Number.isFinite(length) ? length : undefined,
        bytes_out: written === undefined ? undefined : written - facts.startBytesOut,
      },
      'request',
    );
  }
}
