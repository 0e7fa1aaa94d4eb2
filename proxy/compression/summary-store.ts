/**
 * The summaries of a node (docs/compression.md "Summaries"): what the compressor may use on the request path, read
 * without a promise, and the queue that makes them after answers, off the request path.
 *
 * - `lookup(hash)` answers from memory, and its first answer for a span on this node sticks: a summary that becomes
 *   ready while its step is already being served is not switched in (that would break the cached prefix between two
 *   turns). The next step uses the next span's summary.
 * - `request(job)` queues a span, deduplicated by hash. A job reads the span's row in Postgres (another node may
 *   have made it), else claims it (one summary per span across nodes; a stale claim is taken over), calls the
 *   summary model through the gateway (summary-call.ts) and stores the text or the reason it failed.
 */
import type { AppContext } from '../../core/context.ts';
import type { SummarySpan } from '../../compressor/summary-span.ts';
import type { PriceOverride } from '../../core/ai/price-of.ts';
import type { SummaryInput } from './summary-prompt.ts';

export type SummaryMaker = (keyId: string, model: string, input: SummaryInput) => Promise<string>;
/** The instance's price overrides (the gateway's cached table), to judge whether a summary pays. */
export type PriceSource = () => readonly PriceOverride[] | Promise<readonly PriceOverride[]>;

export interface SummaryJob {
  span: SummarySpan;
  /** The span's turns, and the summaries before it (summary-prompt.ts). */
  input: SummaryInput;
  model: string;
  keyId: string;
}

type Known = { state: 'ready'; text: string } | { state: 'failed'; error: string };

const MAX_KNOWN = 20_000;
const CONCURRENCY = 2;
/** A claim older than this belongs to a node that stopped. */
const STALE_CLAIM_MS = 5 * 60_000;
/** A span another node is summarising is looked at again this often, this many times. */
const RECHECK_MS = 2_000;
const RECHECKS = 30;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_KNOWN) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

export class SummaryStore {
  #ctx: AppContext;
  #make: SummaryMaker | undefined;
  #prices: PriceSource = () => [];
  #known = new Map<string, Known>();
  /** The first answer of lookup() per span: the summary text, or null for none. */
  #decided = new Map<string, string | null>();
  #queued = new Map<string, SummaryJob>();
  #running = new Set<string>();
  #idle: (() => void)[] = [];
  #closed = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** How summaries are made (the gateway's pipeline) and priced; until then no summary is requested. */
  useMaker(make: SummaryMaker, prices?: PriceSource): void {
    this.#make = make;
    if (prices) this.#prices = prices;
  }

  /** The price overrides the summary rule reads (list prices apply besides; none until the gateway gives them). */
  priceOverrides(): readonly PriceOverride[] | Promise<readonly PriceOverride[]> {
    return this.#prices();
  }

  get enabled(): boolean {
    return this.#make !== undefined && !this.#closed;
  }

  lookup(hash: string): string | undefined {
    let d = this.#decided.get(hash);
    if (d === undefined) {
      const k = this.#known.get(hash);
      d = k?.state === 'ready' ? k.text : null;
      remember(this.#decided, hash, d);
    }
    return d ?? undefined;
  }

  /** Why the span's summary failed, when it did. */
  failure(hash: string): string | undefined {
    const k = this.#known.get(hash);
    return k?.state === 'failed' ? k.error : undefined;
  }

  request(job: SummaryJob): void {
    const hash = job.span.hash;
    if (!this.enabled || this.#known.has(hash) || this.#queued.has(hash) || this.#running.has(hash)) return;
    this.#queued.set(hash, job);
    this.#pump();
  }

  /** Resolves once no job is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#queued.size === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#queued.clear();
    return this.idle();
  }

  #pump(): void {
    while (this.#running.size < CONCURRENCY && this.#queued.size > 0) {
      const [hash, job] = this.#queued.entries().next().value as [string, SummaryJob];
      this.#queued.delete(hash);
      this.#running.add(hash);
      void this.#run(job)
        .catch((err: unknown) => this.#ctx.log.warn({ err }, 'a compression summary could not be made or stored'))
        .finally(() => {
          this.#running.delete(hash);
          this.#pump();
          if (this.#queued.size === 0 && this.#running.size === 0) for (const done of this.#idle.splice(0)) done();
        });
    }
  }

  async #run(job: SummaryJob): Promise<void> {
    const db = this.#ctx.db;
    const hash = job.span.hash;
    for (let check = 0; ; check++) {
      const row = (await db.query<{ state: string; text: string | null; error: string | null }>(
        'SELECT state, text, error FROM compression_summaries WHERE span_hash = $1', [hash])).rows[0];
      if (row?.state === 'ready' && row.text !== null) return remember(this.#known, hash, { state: 'ready', text: row.text });
      if (row?.state === 'failed') return remember(this.#known, hash, { state: 'failed', error: row.error ?? 'the summary call failed' });
      const now = new Date(this.#ctx.clock.now());
      const claimed = await db.query(
        `INSERT INTO compression_summaries (span_hash, state, model, key_id, turns, tokens_before, claimed_at, updated_at)
         VALUES ($1, 'pending', $2, $3, $4, $5, $6, $6)
         ON CONFLICT (span_hash) DO UPDATE SET claimed_at = $6, updated_at = $6
           WHERE compression_summaries.state = 'pending' AND compression_summaries.claimed_at < $7
         RETURNING span_hash`,
        [hash, job.model, job.keyId, job.span.end - job.span.start, job.span.tokens, now, new Date(now.getTime() - STALE_CLAIM_MS)],
      );
      if (claimed.rows.length > 0) break;
      // Another node is making it: look again a little later (its row says when it is done).
      if (check >= RECHECKS || this.#closed) return;
      await new Promise((resolve) => setTimeout(resolve, RECHECK_MS).unref());
    }
    let known: Known;
    try {
      known = { state: 'ready', text: await this.#make!(job.keyId, job.model, job.input) };
    } catch (err) {
      known = { state: 'failed', error: err instanceof Error ? err.message : String(err) };
    }
    await db.query(
      `UPDATE compression_summaries SET state = $2, text = $3, error = $4, updated_at = $5 WHERE span_hash = $1`,
      [hash, known.state, known.state === 'ready' ? known.text : null, known.state === 'failed' ? known.error : null, new Date(this.#ctx.clock.now())],
    );
    remember(this.#known, hash, known);
  }
}
