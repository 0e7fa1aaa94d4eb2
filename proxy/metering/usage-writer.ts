/**
 * Writes usage records on the shared durable write path (core/writes/durable-writer.ts; DESIGN.md §1 "hot-path
 * writes are batched"): records queue in memory and are written with one INSERT (column arrays, unnest) every
 * time the writer is free (no group wait: the answer's last byte waits for it; a 5 ms wait measured 25 % fewer
 * gateway calls/s than none) or as soon as `batchSize` rows wait, one INSERT at a time (records gather while one runs). write() resolves once the record is durable: committed, or fsynced
 * to the node's usage journal (`<dataDir>/journal/usage/`) while Postgres is unreachable; the gateway waits for
 * it before the last byte of the answer leaves.
 *
 * - Money is never counted twice: each record gets a UUID when written (column record_id, unique); the INSERT skips
 *   ids already stored, so a journal replay after a crash, or a retry after a connection lost during COMMIT, stores
 *   the record once.
 * - No record is ever dropped for load: past `maxQueued` waiting rows, or while the database is down and the journal
 *   full, the writer reports `full` and the gateway refuses new calls (503 usage_backlog) until the backlog is
 *   written; records of calls already served are kept (in memory, retried) meanwhile.
 * - A record Postgres refuses for its content (the rest of its batch is written) is logged and counted in
 *   `rejected`; it is never retried forever and never holds up the records behind it.
 * - Open calls (open-call.ts): open() queues a streamed call's provisional row on the same writer, so it is batched
 *   and journaled like a record, and always written before its record (one queue, one batch at a time; a journal
 *   keeps their order). The record's transaction deletes the row; a row that arrives after its record (a journal
 *   segment replayed late) is left to its lease and never becomes a second record (record_id is unique). The
 *   writer renews the leases of its node's open calls every third of the lease, in one UPDATE. A record whose
 *   call the leader already recorded as lost (`node_lost`, the lease ran out while this node could not reach
 *   Postgres) replaces that estimate.
 * - `drain()` makes everything queued durable; the feature calls it on shutdown, after the server stopped accepting.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../core/db/db.ts';
import { randomHex } from '../../core/ids.ts';
import { svcError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { DurableWriter } from '../../core/writes/durable-writer.ts';
import { WriteJournal } from '../../core/writes/write-journal.ts';
import type { UsageRecord } from './usage-record.ts';
import { OPEN_COLUMNS, openValues, RENEW_LEASES, type OpenCall } from './open-call.ts';

export interface UsageWriterOptions {
  flushMs?: number;
  batchSize?: number;
  maxQueued?: number;
  /** The node's usage journal: directory and size bound. Without it, a failing database is retried in memory. */
  journal?: { dir: string; maxBytes: number };
  /** Open calls: the node that owns (renews) them, and their lease. Defaults: a random id, 60 s. */
  openCalls?: { nodeId?: string; leaseMs?: number };
  /** Days a record is kept (SVC_USAGE_RETENTION_DAYS); default 90. */
  retentionDays?: number;
}

/** A record with the id that makes its write idempotent; `closes` when this node wrote an open row for it. */
interface StampedRecord {
  id: string;
  record: UsageRecord;
  closes?: true;
}

/** An open call's row, with the node that renews its lease. */
interface StampedOpen {
  id: string;
  node: string;
  open: OpenCall;
}

type UsageRow = StampedRecord | StampedOpen;

const isOpen = (r: UsageRow): r is StampedOpen => 'open' in r;

/** Columns and their Postgres types, in the order of `values()`. */
const COLUMNS: readonly (readonly [string, string])[] = [
  ['record_id', 'uuid'], ['at', 'timestamptz'], ['key_id', 'text'], ['team_id', 'text'], ['model', 'text'], ['served_model', 'text'],
  ['alias', 'text'], ['provider', 'text'], ['account_id', 'text'], ['client_style', 'text'], ['upstream_style', 'text'],
  ['status', 'int'], ['error_code', 'text'], ['input_tokens', 'int'], ['output_tokens', 'int'],
  ['cache_read_tokens', 'int'], ['cache_write_tokens', 'int'], ['reasoning_tokens', 'int'], ['usage_source', 'text'],
  ['latency_ms', 'int'], ['ttfb_ms', 'int'], ['cost_usd', 'float8'], ['stream', 'bool'],
  ['compression_mode', 'text'], ['compression_tokens_before', 'int'], ['compression_tokens_after', 'int'],
  ['expires_at', 'timestamptz'],
];

/**
 * The record's expiry (its partition, core/db/partitions.ts) follows from its time alone, so a write repeated after a
 * crash has the same one and the unique (record_id, expires_at) stores it once.
 */
function usageExpiry(at: Date, retentionDays: number): Date {
  return new Date(at.getTime() + retentionDays * 86_400_000);
}

function values({ id, record: r }: StampedRecord, retentionDays: number): unknown[] {
  return [
    id, r.at, r.keyId, r.teamId, r.model, r.servedModel, r.alias, r.provider, r.accountId, r.clientStyle,
    r.upstreamStyle, r.status, r.errorCode, r.inputTokens, r.outputTokens, r.cacheReadTokens,
    r.cacheWriteTokens, r.reasoningTokens, r.usageSource, Math.round(r.latencyMs), r.ttfbMs === null ? null : Math.round(r.ttfbMs),
    r.costUsd, r.stream, r.compression?.mode ?? null,
    r.compression?.mode === 'on' ? r.compression.tokensBefore : null, r.compression?.mode === 'on' ? r.compression.tokensAfter : null,
    usageExpiry(r.at, retentionDays),
  ];
}

/**
 * One statement for any batch size: each column travels as one array parameter and `unnest` turns them back into
 * rows. Postgres parses and plans 26 parameters instead of 26 per row: measured on 500-row batches, its CPU per
 * row fell from about 21 µs (multi-row VALUES) to 8 µs. It is a named (prepared) statement: parsed and planned once
 * per connection, then only executed (measured: about 30 % less Postgres CPU per batch of 2 to 10 rows).
 */
const INSERT = `INSERT INTO usage_records (${COLUMNS.map(([c]) => c).join(',')})
  SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(',')})
  ON CONFLICT (record_id, expires_at) DO NOTHING`;

/**
 * Batches with open calls, or with records that close one: each in one statement (one round trip, one
 * transaction), of three shapes so that no batch pays for parts it does not use (measured: an open row alone in the
 * combined statement cost about half as much again as a plain record insert).
 *
 * - INSERT_OPEN: the open rows; one written again (the call moved to another upstream before its first byte)
 *   takes the new identity and a new lease (`$LEASE`, seconds, on Postgres's clock).
 * - INSERT_CLOSING: the records, replacing an estimate the leader made for a call it took as lost (written_xid
 *   back to its default, so the usage rollups see the row as new), and the deletion of the open rows of those that
 *   close one (`$CLOSE`), by primary key (usage_close_open_calls, migrations/…-usage-open-calls-close.sql).
 * - INSERT_BOTH: both, skipping open rows whose record is in the same batch.
 *
 * No check against records already stored: an open row that reaches Postgres after its record (only from a
 * journal segment replayed late) is not renewed and is deleted by the leader's job without a second record (the
 * record_id is taken), which costs nothing per call.
 */
const OPEN_AT = COLUMNS.length + 1;
const LEASE = OPEN_AT + OPEN_COLUMNS.length;
const CLOSE = LEASE + 1;
const arrays = (cols: readonly (readonly [string, string])[], from: number) => cols.map(([, type], i) => `$${from + i}::${type}[]`).join(',');
const names = (cols: readonly (readonly [string, string])[]) => cols.map(([c]) => c).join(',');
const RECORDS_UPSERT = `INSERT INTO usage_records (${names(COLUMNS)})
  SELECT * FROM unnest(${arrays(COLUMNS, 1)})
  ON CONFLICT (record_id, expires_at) DO UPDATE SET ${COLUMNS.slice(1).map(([c]) => `${c} = EXCLUDED.${c}`).join(', ')}, written_xid = DEFAULT
  WHERE usage_records.error_code = 'node_lost' AND usage_records.usage_source = 'estimated'`;
const openInsert = (from: number, lease: number, skipIds: string) => `INSERT INTO usage_open_calls (${names(OPEN_COLUMNS)}, lease_until, renewed_at)
  SELECT o.*, now() + make_interval(secs => $${lease}::float8), now()
  FROM unnest(${arrays(OPEN_COLUMNS, from)}) AS o(${names(OPEN_COLUMNS)})${skipIds}
  ON CONFLICT (record_id) DO UPDATE SET ${OPEN_COLUMNS.slice(1).map(([c]) => `${c} = EXCLUDED.${c}`).join(', ')},
    lease_until = EXCLUDED.lease_until, renewed_at = EXCLUDED.renewed_at`;
const INSERT_OPEN = openInsert(1, OPEN_COLUMNS.length + 1, '');
const INSERT_CLOSING = `WITH records AS (${RECORDS_UPSERT}) SELECT usage_close_open_calls($${COLUMNS.length + 1}::uuid[])`;
const INSERT_BOTH = `WITH records AS (${RECORDS_UPSERT}), opened AS (${openInsert(OPEN_AT, LEASE, '\n  WHERE o.record_id <> ALL($1::uuid[])')})
SELECT usage_close_open_calls($${CLOSE}::uuid[])`;

const QUOTE_OR_BACKSLASH = /["\\]/;

/**
 * One column as a Postgres array literal: numbers and booleans bare, text and times quoted (with `"` and `\`
 * escaped), NULL for null. Written here rather than by the driver, whose generic escaping of every element cost
 * about 2 µs per usage record.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number') out += String(v);
    else if (typeof v === 'boolean') out += v ? 't' : 'f';
    else if (v instanceof Date) out += `"${v.toISOString()}"`;
    else {
      const text = String(v);
      out += QUOTE_OR_BACKSLASH.test(text) ? `"${text.replace(/["\\]/g, '\\$&')}"` : `"${text}"`;
    }
  }
  return `${out}}`;
}

/** How a record or an open call is kept in the journal: JSON, its time as ISO text. */
const codec = {
  encode: (r: UsageRow) => Buffer.from(JSON.stringify(r)),
  decode: (b: Buffer): UsageRow => {
    const r = JSON.parse(b.toString('utf8')) as UsageRow;
    if (isOpen(r)) r.open.at = new Date(r.open.at);
    else r.record.at = new Date(r.record.at);
    return r;
  },
};

/** Columns as array literals, one per column, from each row's values. */
function columnsOf<T>(rows: readonly T[], width: number, values: (row: T) => unknown[]): string[] {
  const columns: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  rows.forEach((r, i) => values(r).forEach((v, j) => (columns[j][i] = v)));
  return columns.map(arrayLiteral);
}

export class UsageWriter {
  #db: Db;
  #log: Logger;
  #maxQueued: number;
  #rows: DurableWriter<UsageRow>;
  #listeners: ((r: UsageRecord) => void)[] = [];
  readonly nodeId: string;
  #leaseS: number;
  /** Ids of this node's open calls whose record has not been queued yet. */
  #open = new Set<string>();
  #renewTimer: NodeJS.Timeout | undefined;
  #renewFailing = false;
  #values: (r: StampedRecord) => unknown[];

  constructor(db: Db, log: Logger, options: UsageWriterOptions = {}) {
    this.#db = db;
    this.#log = log;
    this.#maxQueued = options.maxQueued ?? 50_000;
    this.nodeId = options.openCalls?.nodeId ?? randomHex(4);
    this.#leaseS = (options.openCalls?.leaseMs ?? 60_000) / 1000;
    const retentionDays = options.retentionDays ?? 90;
    this.#values = (r) => values(r, retentionDays);
    this.#rows = new DurableWriter<UsageRow>({
      name: 'usage',
      log,
      commit: (rows) => this.#commit(rows),
      sizeOf: () => 1,
      // Never refused for load: `full` makes the gateway stop taking calls; the records of calls served are kept.
      maxRows: Number.MAX_SAFE_INTEGER,
      maxBytes: Number.MAX_SAFE_INTEGER,
      batchSize: options.batchSize ?? 500,
      flushMs: options.flushMs ?? 0,
      ...(options.journal ? { journal: { journal: new WriteJournal(options.journal.dir, { maxBytes: options.journal.maxBytes }), codec } } : {}),
      whenJournalFull: 'hold',
      refuse: () => svcError('usage_backlog'),
      onReplayRejected: (r, reason) => this.#rejected(r, reason),
    });
  }

  /** Called for every record as it is queued (e.g. budget counters); must not throw. */
  onRecord(fn: (r: UsageRecord) => void): void {
    this.#listeners.push(fn);
  }

  /**
   * Queues a streamed call's open row under the id its record will have; resolves once it is durable (never
   * rejects: a row that cannot be made durable is logged, and the call goes on). Called again for the same id (the
   * call moved to another upstream), the row is replaced.
   */
  async open(id: string, call: OpenCall): Promise<void> {
    this.#open.add(id);
    this.#renewTimer ??= setInterval(() => void this.#renew(), Math.max(100, (this.#leaseS * 1000) / 3)).unref();
    const row: StampedOpen = { id, node: this.nodeId, open: call };
    let result;
    try {
      result = await this.#rows.write(row);
    } catch (err) {
      this.#log.error({ err, record_id: id, key_id: call.keyId }, 'open call not written (the writer is closing)');
      return;
    }
    if (result.status === 'rejected') this.#rejected(row, result.reason);
  }

  /** Open calls of this node whose record is not queued yet. */
  get openCalls(): number {
    return this.#open.size;
  }

  /**
   * Queues the record; resolves once it is durable (or refused by the database for its content, then logged).
   * `id` is the record's id when it was chosen earlier (an open call's); the record then deletes the open row.
   */
  async write(record: UsageRecord, id?: string): Promise<void> {
    for (const fn of this.#listeners) fn(record);
    const stamped: StampedRecord = id !== undefined && this.#open.delete(id) ? { id, record, closes: true } : { id: id ?? randomUUID(), record };
    if (this.#rows.pending + 1 === this.#maxQueued) this.#log.error({ rows: this.#maxQueued }, 'usage records are not being written: refusing new calls until the backlog is written');
    let result;
    try {
      result = await this.#rows.write(stamped);
    } catch (err) {
      // Only after drain(): the server no longer serves calls.
      this.#log.error({ err, key_id: record.keyId, model: record.model }, 'usage record written after shutdown; it is lost');
      return;
    }
    if (result.status === 'rejected') this.#rejected(stamped, result.reason);
  }

  /** Records waiting to be durable. */
  get queued(): number {
    return this.#rows.pending;
  }

  /** Rows committed so far (records and open calls, replays included). */
  get written(): number {
    return this.#rows.stats.committed + this.#rows.stats.replayed;
  }

  /** Records Postgres refused for their content. */
  get rejected(): number {
    return this.#rows.stats.rejected;
  }

  /** True while the backlog is at its bound (or the database is down and the journal full): the gateway then refuses new calls rather than lose their usage. */
  get full(): boolean {
    return this.#rows.pending >= this.#maxQueued || this.#rows.full;
  }

  /** Replays the usage journal now (the writer also does so by itself at start and once Postgres is back). */
  replay(): Promise<void> {
    return this.#rows.replay();
  }

  /** Makes everything queued durable, and stops renewing leases (a call still open is left to its lease). */
  async drain(timeoutMs = 10_000): Promise<void> {
    clearInterval(this.#renewTimer);
    await this.#rows.drain(timeoutMs);
  }

  /** Renews the leases of this node's open calls: one statement for all of them, none when there are none. */
  async #renew(): Promise<void> {
    if (this.#open.size === 0) return;
    try {
      await this.#db.query(RENEW_LEASES, [this.nodeId, this.#leaseS, arrayLiteral([...this.#open])], { name: 'svc_usage_open_renew' });
      if (this.#renewFailing) this.#log.info({ node: this.nodeId }, 'open call leases renewed again');
      this.#renewFailing = false;
    } catch (err) {
      // Retried at the next period; the rows' leases run on meanwhile (docs/operations.md, "Open calls").
      if (!this.#renewFailing) this.#log.warn({ err, node: this.nodeId, open_calls: this.#open.size }, 'open call leases could not be renewed');
      this.#renewFailing = true;
    }
  }

  async #commit(batch: UsageRow[]): Promise<void> {
    let records: StampedRecord[] = [];
    let opens: Map<string, StampedOpen> | undefined;
    let closes = false;
    for (const r of batch) {
      if (isOpen(r)) (opens ??= new Map()).set(r.id, r);
      else {
        records.push(r);
        if (r.closes) closes = true;
      }
    }
    if (opens === undefined && !closes) {
      await this.#db.query(INSERT, columnsOf(records, COLUMNS.length, this.#values), { name: 'svc_usage_insert' });
      return;
    }
    const open = [...(opens?.values() ?? [])];
    const openParams = () => [...columnsOf(open, OPEN_COLUMNS.length, (o) => openValues(o.id, o.node, o.open)), this.#leaseS];
    if (records.length === 0) {
      await this.#db.query(INSERT_OPEN, openParams(), { name: 'svc_usage_open_insert' });
      return;
    }
    // ON CONFLICT DO UPDATE may touch a row once per statement: one row per id (a replayed segment may repeat one).
    if (new Set(records.map((r) => r.id)).size < records.length) records = [...new Map(records.map((r) => [r.id, r])).values()];
    const recordParams = columnsOf(records, COLUMNS.length, this.#values);
    const closing = arrayLiteral(records.filter((r) => r.closes).map((r) => r.id));
    if (open.length === 0) await this.#db.query(INSERT_CLOSING, [...recordParams, closing], { name: 'svc_usage_insert_closing' });
    else await this.#db.query(INSERT_BOTH, [...recordParams, ...openParams(), closing], { name: 'svc_usage_insert_open' });
  }

  #rejected(row: UsageRow, reason: string): void {
    if (isOpen(row)) {
      this.#log.error({ record_id: row.id, key_id: row.open.keyId, team_id: row.open.teamId, model: row.open.model, reason }, 'open call refused by the database; it is not stored');
      return;
    }
    const { id, record } = row;
    this.#log.error({ record_id: id, key_id: record.keyId, team_id: record.teamId, model: record.model, cost_usd: record.costUsd, reason }, 'usage record refused by the database; it is not stored');
  }
}
