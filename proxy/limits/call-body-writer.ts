/**
 * Writes kept call bodies (table call_bodies) on the shared durable write path (core/writes/durable-writer.ts), off
 * the request path: rows queue in memory and go out in one multi-row INSERT every `flushMs` or as soon as
 * `batchSize` rows or `batchBytes` wait. While Postgres is unreachable they go to the node's call-body journal
 * (`<dataDir>/journal/call-bodies/`) and are replayed once it is back; the INSERT skips ids already stored, so a
 * replay never doubles a row. The queue is bounded in bytes; past it (or with the database down and the journal
 * full) new rows are dropped and counted: a kept body is a debugging aid, and the gateway keeps answering. A row
 * Postgres refuses for its content is dropped and counted the same way, without holding up the others. The INSERT
 * joins gateway_keys under FOR SHARE and keeps only rows whose key still logs bodies, so a key switched to `off`
 * (whose rows the control plane deletes at once) never gets rows back from a batch in flight.
 */
import type { Db } from '../../core/db/db.ts';
import { svcError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { DurableWriter } from '../../core/writes/durable-writer.ts';
import { WriteJournal } from '../../core/writes/write-journal.ts';

export interface CallBodyRow {
  id: string;
  keyId: string;
  teamId: string;
  model: string;
  servedModel: string | null;
  clientStyle: string;
  stream: boolean;
  status: number;
  errorCode: string | null;
  request: string;
  response: string | null;
  truncated: boolean;
  createdAt: Date;
  expiresAt: Date;
}

export interface CallBodyWriterOptions {
  flushMs?: number;
  batchSize?: number;
  batchBytes?: number;
  maxQueuedBytes?: number;
  /** The node's call-body journal: directory and size bound. Without it, a failing database is retried in memory. */
  journal?: { dir: string; maxBytes: number };
}

const COLUMNS = [
  ['id', 'text'], ['key_id', 'text'], ['team_id', 'text'], ['model', 'text'], ['served_model', 'text'], ['client_style', 'text'],
  ['stream', 'boolean'], ['status', 'int'], ['error_code', 'text'], ['request', 'text'], ['response', 'text'], ['truncated', 'boolean'],
  ['created_at', 'timestamptz'], ['expires_at', 'timestamptz'],
] as const;
const NAMES = COLUMNS.map(([n]) => n).join(', ');

function values(r: CallBodyRow): unknown[] {
  return [r.id, r.keyId, r.teamId, r.model, r.servedModel, r.clientStyle, r.stream, r.status, r.errorCode, r.request, r.response, r.truncated, r.createdAt, r.expiresAt];
}

function insertSql(n: number): string {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) rows.push(`(${COLUMNS.map(([, type], j) => `$${i * COLUMNS.length + j + 1}::${type}`).join(',')})`);
  return `INSERT INTO call_bodies (${NAMES})
    SELECT ${COLUMNS.map(([n]) => `v.${n}`).join(', ')} FROM (VALUES ${rows.join(',')}) AS v(${NAMES})
      JOIN gateway_keys g ON g.id = v.key_id AND g.log_bodies <> 'off'
    FOR SHARE OF g
    ON CONFLICT (id, expires_at) DO NOTHING`;
}

const sizeOf = (r: CallBodyRow) => r.request.length + (r.response?.length ?? 0) + 256;

/** How a row is kept in the journal: JSON, its times as ISO text. */
const codec = {
  encode: (r: CallBodyRow) => Buffer.from(JSON.stringify(r)),
  decode: (b: Buffer): CallBodyRow => {
    const r = JSON.parse(b.toString('utf8')) as CallBodyRow;
    return { ...r, createdAt: new Date(r.createdAt), expiresAt: new Date(r.expiresAt) };
  },
};

export class CallBodyWriter {
  #db: Db;
  #log: Logger;
  #rows: DurableWriter<CallBodyRow>;
  /** Rows not kept: the queue or journal was full, or the database refused them. */
  dropped = 0;

  constructor(db: Db, log: Logger, options: CallBodyWriterOptions = {}) {
    this.#db = db;
    this.#log = log;
    this.#rows = new DurableWriter<CallBodyRow>({
      name: 'call-bodies',
      log,
      commit: async (rows) => {
        const params: unknown[] = [];
        for (const r of rows) params.push(...values(r));
        await this.#db.query(insertSql(rows.length), params);
      },
      sizeOf,
      maxRows: Number.MAX_SAFE_INTEGER,
      maxBytes: options.maxQueuedBytes ?? 64 * 1024 * 1024,
      batchSize: options.batchSize ?? 100,
      batchBytes: options.batchBytes ?? 8 * 1024 * 1024,
      flushMs: options.flushMs ?? 500,
      ...(options.journal ? { journal: { journal: new WriteJournal(options.journal.dir, { maxBytes: options.journal.maxBytes }), codec } } : {}),
      whenJournalFull: 'reject',
      refuse: (reason) => svcError('service_unavailable', `call-body writer refused a row: ${reason}`),
      onReplayRejected: (r, reason) => this.#drop(r, reason),
    });
  }

  /** Queues a row; never throws and never waits (the answer does not depend on it). */
  write(row: CallBodyRow): void {
    let written;
    try {
      written = this.#rows.write(row);
    } catch (err) {
      this.#drop(row, (err as Error).message);
      return;
    }
    written.then(
      (r) => {
        if (r.status === 'rejected') this.#drop(row, r.reason);
      },
      (err: unknown) => this.#drop(row, (err as Error).message),
    );
  }

  get queued(): number {
    return this.#rows.pending;
  }

  /** Rows committed so far (replays included). */
  get written(): number {
    return this.#rows.stats.committed + this.#rows.stats.replayed;
  }

  /** Replays the call-body journal now (the writer also does so by itself at start and once Postgres is back). */
  replay(): Promise<void> {
    return this.#rows.replay();
  }

  async drain(timeoutMs = 10_000): Promise<void> {
    await this.#rows.drain(timeoutMs);
  }

  #drop(row: CallBodyRow, reason: string): void {
    if (++this.dropped % 100 === 1) this.#log.error({ dropped: this.dropped, id: row.id, key_id: row.keyId, reason }, 'call body not kept');
  }
}
