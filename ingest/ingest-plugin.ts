/**
 * The error-ingest surface of the proxy role: `POST /api/{project}/envelope/` and `POST /api/{project}/store/`
 * with open CORS, and `GET /js/{key}.js` (the browser reporting script, reporting-script/), in their own fastify
 * scope: any content type is left unread as the request stream, which the endpoint reads only once the client key is
 * checked (read-request-body.ts: at most 20 MB as sent, decoded within the process-wide inflate budget), errors
 * are the family's error object, and the routes stay out of the OpenAPI document (docs/errors.md describes them).
 *
 * createIngest wires the lookups, limits, outcome counts and the batch writer; drain() flushes the writer.
 */
import { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { join } from 'node:path';
import type { AppContext } from '../core/context.ts';
import { svcError } from '../core/errors.ts';
import { WriteJournal } from '../core/writes/write-journal.ts';
import { sendError, toSvcError } from '../core/http/reply-error.ts';
import { ENVELOPE_MAX_BYTES } from './lib/ingest-limits.ts';
import { sendPreflight, setCorsHeaders } from './cors.ts';
import type { IngestDeps, IngestReply, IngestRequest } from './ingest-deps.ts';
import { InflateBudget } from './lib/inflate-budget.ts';
import { IngestLimiter } from './ingest-limiter.ts';
import { OutcomeCounter } from './outcome-counter.ts';
import { ProjectLookup } from './project-lookup.ts';
import { receiveEnvelope } from './receive-envelope.ts';
import { receiveStore } from './receive-store.ts';
import { reportingScriptRoute } from './reporting-script/reporting-script-route.ts';
import { BatchWriter, type WriterOptions } from './writer/batch-writer.ts';
import { claimExpired, insertInbox } from './writer/ingest-inbox.ts';
import { createWriteBatch } from './writer/write-batch.ts';
import { PreparePool } from './writer/prepare-pool.ts';

export interface Ingest {
  plugin(app: FastifyInstance): Promise<void>;
  drain(): Promise<void>;
  deps: IngestDeps;
}

export function createIngest(ctx: AppContext, options: Partial<WriterOptions> = {}): Ingest {
  const lookup = new ProjectLookup(ctx);
  const outcomes = new OutcomeCounter(ctx.metrics.enabled ? ctx.metrics.ingest : undefined);
  const pool = new PreparePool(ctx.config.ingestWorkers, ctx.log);
  const inbox = { insert: (events: Parameters<typeof insertInbox>[1]) => insertInbox(ctx.db, events), claimExpired: (limit: number) => claimExpired(ctx.db, limit) };
  const writer = new BatchWriter(ctx, outcomes, createWriteBatch(ctx, pool), inbox, {
    journal: new WriteJournal(join(ctx.config.dataDir, 'journal', 'events'), { maxBytes: ctx.config.journalMaxBytes }),
    maxEvents: ctx.config.ingestQueueEvents,
    maxBytes: ctx.config.ingestQueueBytes,
    batchSize: ctx.config.ingestBatchSize,
    flushMs: ctx.config.ingestFlushMs,
    concurrency: ctx.db.kind === 'embedded' ? 1 : 2,
    drainTimeoutMs: 25_000,
    ...options,
  });
  // /healthz: while the database is down this node keeps accepting events as long as its journal takes them.
  ctx.health.add(
    'events_journal',
    () => {
      const j = writer.journalState;
      return { ok: !(j.databaseDown && j.full), database_down: j.databaseDown, journal_bytes: j.journalBytes, max_bytes: ctx.config.journalMaxBytes };
    },
    { keepsRequests: true },
  );
  const limiter = new IngestLimiter(ctx.counters, lookup, ctx.clock);
  const deps: IngestDeps = { ctx, lookup, limiter, outcomes, writer, inflateBudget: new InflateBudget(ctx.config.ingestInflateBudgetBytes) };
  const drain = async () => {
    await writer.drain();
    await pool.close();
    await limiter.flush();
  };
  return { plugin: (app) => ingestRoutes(app, deps), drain, deps };
}

type Receive = (deps: IngestDeps, req: IngestRequest) => Promise<IngestReply>;

async function ingestRoutes(app: FastifyInstance, deps: IngestDeps): Promise<void> {
  app.removeAllContentTypeParsers();
  // No parseAs: the body stays the request stream, so a refused key never costs a read (let alone an inflate).
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  app.addHook('onRequest', async (_req, reply) => setCorsHeaders(reply));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    setCorsHeaders(reply);
    const e = err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? svcError('envelope_too_large', undefined, { limit_bytes: ENVELOPE_MAX_BYTES }) : toSvcError(err);
    // SDKs log this header when a send fails (it is how Relay explains a refusal).
    reply.header('x-sentry-error', e.message.replace(/[^\x20-\x7e]/g, '?').slice(0, 200));
    return sendError(req, reply, e);
  });

  const routes: Array<[string, Receive]> = [['/api/:project/envelope/', receiveEnvelope], ['/api/:project/store/', receiveStore]];
  for (const [url, receive] of routes) {
    app.options(url, { config: { openapi: false } }, async (_req, reply) => sendPreflight(reply));
    app.post(url, { config: { openapi: false } }, async (req: FastifyRequest, reply: FastifyReply) => {
      const answer = await receive(deps, {
        projectParam: (req.params as { project: string }).project,
        headers: req.headers,
        query: (req.query ?? {}) as Record<string, unknown>,
        body: req.body instanceof Readable ? req.body : Buffer.alloc(0),
        clientIp: req.ip,
      });
      return reply.code(200).send(answer);
    });
  }
  reportingScriptRoute(app, deps);
}
