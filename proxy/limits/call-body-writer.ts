/**
 * Writes kept call bodies (table call_bodies) in batches, off the request path, like the usage writer: rows queue
 * in memory and go out in one multi-row INSERT every `flushMs` or as soon as `batchSize` rows or `batchBytes`
 * wait. The queue is bounded in bytes; past it the oldest rows are dropped and counted (the gateway keeps
 * answering). The INSERT joins gateway_keys under FOR SHARE and keeps only rows whose key still logs bodies, so a
 * key switched to `off` (whose rows the control plane deletes at once) never gets rows back from a batch in flight.
 */
import type { Db } from '../../core/db/db.ts';
import type { Logger } from '../../core/logger.ts';

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
    FOR SHARE OF g`;
}

/** A row that failed this many batches is dropped (the database refuses it, or is down for long). */
const MAX_ATTEMPTS = 5;

const sizeOf = (r: CallBodyRow) => r.request.length + (r.response?.length ?? 0) + 256;

export class CallBodyWriter {
  #db: Db;
  #log: Logger;
  #flushMs: number;
  #batchSize: number;
  #batchBytes: number;
  #maxQueuedBytes: number;
  #queue: CallBodyRow[] = [];
  #queuedBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #attempts = new WeakMap<CallBodyRow, number>();
  dropped = 0;
  written = 0;

  constructor(db: Db, log: Logger, options: CallBodyWriterOptions = {}) {
    this.#db = db;
    this.#log = log;
    this.#flushMs = options.flushMs ?? 500;
    this.#batchSize = options.batchSize ?? 100;
    this.#batchBytes = options.batchBytes ?? 8 * 1024 * 1024;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024 * 1024;
  }

  write(row: CallBodyRow): void {
    const size = sizeOf(row);
    while (this.#queue.length > 0 && this.#queuedBytes + size > this.#maxQueuedBytes) {
      this.#queuedBytes -= sizeOf(this.#queue.shift() as CallBodyRow);
      if (++this.dropped % 100 === 1) this.#log.error({ dropped: this.dropped }, 'call-body queue full: dropping the oldest call bodies');
    }
    this.#queue.push(row);
    this.#queuedBytes += size;
    if (this.#queue.length >= this.#batchSize || this.#queuedBytes >= this.#batchBytes) void this.#flush();
    else this.#timer ??= setTimeout(() => void this.#flush(), this.#flushMs);
  }

  get queued(): number {
    return this.#queue.length;
  }

  async drain(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length > 0 || this.#writing) {
      if (Date.now() > deadline) {
        this.#log.error({ rows: this.#queue.length }, 'call bodies could not be written before shutdown');
        return;
      }
      await this.#flush();
    }
  }

  async #flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#writing) return this.#writing;
    if (this.#queue.length === 0) return;
    let n = 0;
    let bytes = 0;
    while (n < this.#queue.length && n < this.#batchSize && (n === 0 || bytes + sizeOf(this.#queue[n]) <= this.#batchBytes)) bytes += sizeOf(this.#queue[n++]);
    const batch = this.#queue.splice(0, n);
    this.#queuedBytes -= bytes;
    this.#writing = this.#insert(batch).finally(() => {
      this.#writing = undefined;
      if (this.#queue.length > 0) this.#timer ??= setTimeout(() => void this.#flush(), 0);
    });
    return this.#writing;
  }

  async #insert(batch: CallBodyRow[]): Promise<void> {
    const params: unknown[] = [];
    for (const r of batch) params.push(...values(r));
    try {
      await this.#db.query(insertSql(batch.length), params);
      this.written += batch.length;
    } catch (err) {
      this.#log.error({ err, rows: batch.length }, 'writing call bodies failed; will retry');
      for (const r of batch.reverse()) {
        const attempts = (this.#attempts.get(r) ?? 0) + 1;
        this.#attempts.set(r, attempts);
        if (attempts >= MAX_ATTEMPTS || this.#queuedBytes + sizeOf(r) > this.#maxQueuedBytes) {
          this.dropped++;
          continue;
        }
        this.#queue.unshift(r);
        this.#queuedBytes += sizeOf(r);
      }
      await new Promise((r) => setTimeout(r, Math.min(1000, this.#flushMs * 2)));
    }
  }
}
