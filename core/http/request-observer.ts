/**
 * What happens when a request ends, on every route of every role: it is counted in the node's HTTP metrics and,
 * for the sampled share (SVC_REQUEST_LOG_SAMPLE), written as one `info` line:
 *
 *   {"level":30,"msg":"request","req_id":"…","method":"POST","route":"/v1/chat/completions","status":200,
 *    "duration_ms":12.3,"key_id":"…","team_id":"…","model":"gpt-4o-mini","upstream":"openai","bytes_in":245,"bytes_out":612}
 *
 * `route` is the registered path (`/api/v1/teams/:id`), never the URL, so no id, query string or key in a query
 * parameter reaches the log; no header and no body is logged. `key_id` (gateway key), `token_id` (API token, or
 * `admin` for SVC_ADMIN_TOKEN), `user_id`, `team_id`, `model` and `upstream` appear when the request knew them:
 * surfaces fill `req.logFacts` (the gateway does), which exists only for a request that will be logged.
 *
 * It is fastify's LogController (called once per request already, when the answer's last byte is written), so
 * it costs no hook. A request whose client hung up first is reported with status 499 when the connection closes.
 * `bytes_out` is what the connection wrote meanwhile (headers included).
 */
import type { Socket } from 'node:net';
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

const IN_FLIGHT = Symbol('svc.inFlight');
const CLIENT_CLOSED = 499;

const HUNG_UP = Symbol('svc.hungUp');

type TrackedSocket = Socket & { [IN_FLIGHT]?: FastifyReply | null };
type HungUpReply = FastifyReply & { [HUNG_UP]?: true };

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

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    // fastify reports a request only once its answer's last byte is written; one whose client hung up before is
    // reported when the connection closes (one listener per connection, not per request).
    const socket = request.raw.socket as TrackedSocket | null;
    if (socket) {
      if (socket[IN_FLIGHT] === undefined) socket.once('close', () => this.#hungUp(socket));
      socket[IN_FLIGHT] = reply;
    }
    if (this.#log === undefined || (this.#sample < 1 && Math.random() >= this.#sample)) return;
    request.logFacts = { startBytesOut: socket?.bytesWritten ?? 0 };
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const socket = request.raw.socket as TrackedSocket | null;
    if (socket && socket[IN_FLIGHT] === reply) socket[IN_FLIGHT] = null;
    // Reported already when its client hung up (the response may still end with an error afterwards).
    if ((reply as HungUpReply)[HUNG_UP] === true) return;
    this.#report(request, reply, reply.statusCode);
  }

  /** The connection closed: a request still in flight was given up by its client (499, as usage records say). */
  #hungUp(socket: TrackedSocket): void {
    const reply = socket[IN_FLIGHT];
    socket[IN_FLIGHT] = null;
    if (reply) {
      (reply as HungUpReply)[HUNG_UP] = true;
      this.#report(reply.request, reply, CLIENT_CLOSED);
    }
  }

  #report(request: FastifyRequest, reply: FastifyReply, status: number): void {
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
    cells?.count(status, durationMs);
    if (facts !== null) this.#write(request, facts, status, durationMs, config.url);
  }

  #write(request: FastifyRequest, facts: RequestFacts, status: number, durationMs: number, route: string | undefined): void {
    const p = (request as { principal?: Principal | null }).principal;
    const length = Number(request.headers['content-length']);
    const written = request.raw.socket?.bytesWritten;
    this.#log?.info(
      {
        req_id: request.id,
        method: request.method,
        route: route ?? null,
        status,
        duration_ms: Math.round(durationMs * 100) / 100,
        key_id: facts.key,
        // `token` would be redacted by the logger (core/logger.ts): this is an id, not a secret.
        token_id: p ? (p.via === 'admin_token' ? 'admin' : (p.tokenId ?? undefined)) : undefined,
        user_id: p?.userId ?? undefined,
        team_id: facts.team,
        model: facts.model,
        upstream: facts.upstream,
        bytes_in: Number.isFinite(length) ? length : undefined,
        bytes_out: written === undefined ? undefined : written - facts.startBytesOut,
      },
      'request',
    );
  }
}
