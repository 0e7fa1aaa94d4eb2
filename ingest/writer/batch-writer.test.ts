import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../core/context.ts';
import { createLogger } from '../../core/logger.ts';
import { OutcomeCounter, type OutcomeRow } from '../outcome-counter.ts';
import type { IngestProject } from '../project-lookup.ts';
import { BatchWriter, type WriteBatch, type WriterOptions } from './batch-writer.ts';
import type { QueuedEvent } from './queued-event.ts';

const ctx = { log: createLogger('silent') } as unknown as AppContext;
const project = { id: 1 } as IngestProject;
const OPTS: WriterOptions = { maxEvents: 10, maxBytes: 1_000_000, batchSize: 4, flushMs: 5, concurrency: 1, drainTimeoutMs: 2000 };

function event(i: number): QueuedEvent {
  return { project, eventId: String(i).padStart(32, '0'), payload: Buffer.from('{}'), receivedAt: 0, bytes: 0 };
}

function writer(write: WriteBatch, opts: Partial<WriterOptions> = {}, outcomes = new OutcomeCounter()) {
  return new BatchWriter(ctx, outcomes, write, { ...OPTS, ...opts });
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
    expect(w.stats.retries).toBe(2);
  });

  it('isolates an event that always fails, writes the others and reports it rejected with the reason', async () => {
    const written: number[] = [];
    const w = writer(async (events) => {
      if (events.some((e) => Number(e.eventId) === 2)) throw Object.assign(new Error('invalid byte sequence'), { code: '22021' });
      written.push(...events.map((e) => Number(e.eventId)));
    });
    const acks = Array.from({ length: 4 }, (_, i) => push(w, i));
    await w.drain();
    expect(written.sort()).toEqual([0, 1, 3]);
    expect(await acks[2]).toEqual({ status: 'rejected', reason: '22021: invalid byte sequence' });
    expect(w.stats.rejected).toBe(1);
    expect(w.pending).toBe(0);
  });

  it('reports events the write leaves out (unpreparable) as rejected', async () => {
    const w = writer(async (events) => events.flatMap((e, index) => (Number(e.eventId) === 1 ? [{ index, reason: 'not an object' }] : [])));
    const acks = await Promise.all([0, 1, 2].map((i) => push(w, i)));
    expect(acks.map((a) => a.status)).toEqual(['committed', 'rejected', 'committed']);
    await w.drain();
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
