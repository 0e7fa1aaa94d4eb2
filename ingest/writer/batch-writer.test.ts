import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../core/context.ts';
import { createLogger } from '../../core/logger.ts';
import { OutcomeCounter, type OutcomeRow } from '../outcome-counter.ts';
import type { IngestProject } from '../project-lookup.ts';
import { BatchWriter, type Inbox, type WriteBatch, type WriterOptions } from './batch-writer.ts';
import type { InboxItem } from './event-processor.ts';
import type { QueuedEvent } from './queued-event.ts';

const ctx = { log: createLogger('silent') } as unknown as AppContext;
const project = { id: 1 } as IngestProject;
const OPTS: WriterOptions = { maxEvents: 10, maxBytes: 1_000_000, batchSize: 4, flushMs: 5, concurrency: 1, drainTimeoutMs: 2000 };

function event(i: number): QueuedEvent {
  return { project, eventId: String(i).padStart(32, '0'), payload: Buffer.from('{}'), receivedAt: 0, bytes: 0 };
}

/** An inbox in memory: the rows the writer committed, and leftovers a sweep may claim. */
function memoryInbox(leftovers: InboxItem[] = []): Inbox & { inserted: number } {
  let next = 0;
  return {
    inserted: 0,
    async insert(events) {
      this.inserted += events.length;
      return events.map(() => `row-${next++}`);
    },
    async claimExpired(limit) {
      return leftovers.splice(0, limit);
    },
  };
}

function writer(write: WriteBatch, opts: Partial<WriterOptions> = {}, outcomes = new OutcomeCounter(), inbox = memoryInbox()) {
  return new BatchWriter(ctx, outcomes, write, inbox, { ...OPTS, ...opts });
}

function push(w: BatchWriter, i: number, bytes = 10) {
  return w.reserve(bytes).commit(event(i));
}

describe('BatchWriter', () => {
  it('writes in batches of at most batchSize, in order, and drains the rest', async () => {
    const batches: number[][] = [];
    const w = writer(async (events) => {
      batches.push(events.map((e) => Number(e.eventId)));
      await new Promise((r) => setTimeout(r, 10));
    });
    const acks = Array.from({ length: 10 }, (_, i) => push(w, i));
    await w.drain();
    expect(batches.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(4);
    expect(w.pending).toBe(0);
    expect(w.stats.committed).toBe(10);
    expect((await Promise.all(acks)).every((r) => r.status === 'committed')).toBe(true);
  });

  it('refuses past maxEvents (reservations included) and past maxBytes with ingest_queue_full', () => {
    const w = writer(() => new Promise(() => {}), { maxEvents: 3, maxBytes: 100 });
    const a = w.reserve(10);
    w.reserve(10);
    w.reserve(10);
    expect(() => w.reserve(10)).toThrow(expect.objectContaining({ code: 'ingest_queue_full', status: 503, headers: { 'Retry-After': '1' } }));
    a.release();
    expect(w.pending).toBe(2);
    w.reserve(10);
    const small = writer(() => new Promise(() => {}), { maxBytes: 50 });
    small.reserve(40);
    expect(() => small.reserve(20)).toThrow(expect.objectContaining({ code: 'ingest_queue_full' }));
  });

  it('keeps a batch through transient failures and writes it once the database is back', async () => {
    let calls = 0;
    const written: number[] = [];
    const w = writer(async (events) => {
      calls += 1;
      if (calls <= 2) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      written.push(...events.map((e) => Number(e.eventId)));
    });
    for (let i = 0; i < 3; i++) void push(w, i);
    await w.drain();
    expect(written).toEqual([0, 1, 2]);
    expect(w.processorStats.retries).toBe(2);
  });

  it('acknowledges once the inbox has the events, then processes them and deletes their inbox rows', async () => {
    const inbox = memoryInbox();
    const deleted: string[] = [];
    let processed = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const w = writer(async (events, _rows, ids) => {
      await held;
      processed += events.length;
      deleted.push(...ids);
    }, {}, new OutcomeCounter(), inbox);
    const acks = await Promise.all([0, 1, 2].map((i) => push(w, i)));
    expect(acks.map((a) => a.status)).toEqual(['committed', 'committed', 'committed']);
    expect(inbox.inserted).toBe(3);
    expect(processed).toBe(0);
    expect(w.pending).toBe(3);
    release();
    await w.drain();
    expect(processed).toBe(3);
    expect(deleted.sort()).toEqual(['row-0', 'row-1', 'row-2']);
    expect(w.pending).toBe(0);
  });

  it('counts the processing in the queue bound: a stuck processing refuses new events', async () => {
    const w = writer(() => new Promise(() => {}), { maxEvents: 3 });
    await Promise.all([0, 1, 2].map((i) => push(w, i)));
    expect(() => w.reserve(10)).toThrow(expect.objectContaining({ code: 'ingest_queue_full', status: 503 }));
  });

  it('isolates an event that always fails, writes the others, deletes its inbox row and counts it invalid', async () => {
    const written: number[] = [];
    const deleted: string[] = [];
    const counted: OutcomeRow[] = [];
    const w = writer(async (events, rows, ids) => {
      if (events.some((e) => Number(e.eventId) === 2)) throw Object.assign(new Error('invalid byte sequence'), { code: '22021' });
      written.push(...events.map((e) => Number(e.eventId)));
      deleted.push(...ids);
      counted.push(...rows);
    });
    const acks = Array.from({ length: 4 }, (_, i) => push(w, i));
    expect((await Promise.all(acks)).every((a) => a.status === 'committed')).toBe(true);
    await w.drain();
    expect(written.sort()).toEqual([0, 1, 3]);
    expect(deleted.sort()).toEqual(['row-0', 'row-1', 'row-2', 'row-3']);
    expect(w.processorStats.rejected).toBe(1);
    expect(counted.filter((r) => r.outcome === 'invalid').map((r) => `${r.reason}:${r.quantity}`)).toEqual(['invalid_event:1']);
    expect(w.pending).toBe(0);
  });

  it('counts events the write leaves out (unpreparable) as rejected', async () => {
    const w = writer(async (events) => events.flatMap((e, index) => (Number(e.eventId) === 1 ? [{ index, reason: 'not an object' }] : [])));
    await Promise.all([0, 1, 2].map((i) => push(w, i)));
    await w.drain();
    expect(w.processorStats.rejected).toBe(1);
    expect(w.processorStats.processed).toBe(2);
  });

  it('processes rows another node left in the inbox', async () => {
    const leftovers = [5, 6].map((i) => ({ id: `old-${i}`, event: event(i) }));
    const deleted: string[] = [];
    const w = writer(async (_events, _rows, ids) => {
      deleted.push(...ids);
    }, { sweepMs: 20 }, new OutcomeCounter(), memoryInbox(leftovers));
    const deadline = Date.now() + 5000;
    while (deleted.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await w.drain();
    expect(deleted.sort()).toEqual(['old-5', 'old-6']);
  });

  it('flushes outcome counts with batches, alone when idle, and puts them back when a write fails', async () => {
    const outcomes = new OutcomeCounter();
    const seen: OutcomeRow[][] = [];
    let fail = true;
    const w = writer(async (_events, rows) => {
      if (fail) {
        fail = false;
        throw Object.assign(new Error('connection'), { code: 'ECONNRESET' });
      }
      seen.push(rows);
    }, {}, outcomes);
    outcomes.add(1, 0, { outcome: 'accepted' }, 'error', 3);
    await w.drain();
    expect(seen.flat().reduce((n, r) => n + r.quantity, 0)).toBe(3);
  });

  it('refuses new events once draining', async () => {
    const w = writer(async () => {});
    await w.drain();
    expect(() => w.reserve(1)).toThrow(expect.objectContaining({ code: 'ingest_queue_full' }));
  });
});
