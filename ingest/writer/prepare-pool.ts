/**
 * Where events are prepared (parsed, scrubbed, normalised, grouped): in worker threads, so that this CPU work runs
 * beside the event loop that answers SDKs, or inline when the pool has no threads (one-core machines, or
 * SVC_INGEST_WORKERS=0). A batch's bytes travel to the worker in one transferred buffer. If a worker fails, its
 * batches are prepared inline and the worker is replaced.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../core/logger.ts';
import { prepareBatch, type BatchInput, type PreparedBatch } from './prepare-batch.ts';
import { prepareInputOf } from './prepare-queued.ts';
import type { QueuedEvent } from './queued-event.ts';

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (b: PreparedBatch) => void; reject: (e: Error) => void }>;
}

const WORKER_URL = new URL('./prepare-worker.ts', import.meta.url);

export class PreparePool {
  #size: number;
  #log: Logger;
  #slots: Slot[] = [];
  #nextId = 1;
  #closed = false;

  constructor(size: number, log: Logger) {
    this.#size = Math.max(0, size);
    this.#log = log;
  }

  get threads(): number {
    return this.#size;
  }

  async prepare(events: readonly QueuedEvent[]): Promise<PreparedBatch> {
    const { bytes, inputs } = pack(events);
    if (this.#size === 0 || this.#closed) return prepareBatch(inputs, bytes);
    try {
      return await this.#send(bytes, inputs);
    } catch (err) {
      this.#log.warn({ err }, 'ingest prepare worker failed; preparing the batch inline');
      return prepareBatch(inputs, pack(events).bytes);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  #send(bytes: Buffer, inputs: BatchInput[]): Promise<PreparedBatch> {
    while (this.#slots.length < this.#size) this.#slots.push(this.#spawn());
    const slot = this.#slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, buffer: bytes.buffer, inputs }, [bytes.buffer as ArrayBuffer]);
    });
  }

  #spawn(): Slot {
    // A young generation that holds a whole batch's short-lived objects: they die there instead of being promoted.
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 64 } });
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (msg: { id: number; result?: PreparedBatch; error?: string }) => {
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      // A transferred Buffer arrives as a plain Uint8Array.
      if (msg.result) p.resolve({ ...msg.result, rows: { columns: asBuffer(msg.result.rows.columns), documents: asBuffer(msg.result.rows.documents) } });
      else p.reject(new Error(msg.error ?? 'prepare worker failed'));
    });
    const fail = (err: Error) => {
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
      const i = this.#slots.indexOf(slot);
      if (i !== -1) this.#slots.splice(i, 1);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`prepare worker exited with ${code}`)));
    return slot;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The payloads one after the other in a buffer of its own (never a pooled one: it is transferred). */
function pack(events: readonly QueuedEvent[]): { bytes: Buffer; inputs: BatchInput[] } {
  const total = events.reduce((n, e) => n + e.payload.length, 0);
  const bytes = Buffer.allocUnsafeSlow(Math.max(1, total));
  const inputs: BatchInput[] = [];
  let offset = 0;
  for (const e of events) {
    e.payload.copy(bytes, offset);
    inputs.push({ ...prepareInputOf(e), offset, length: e.payload.length });
    offset += e.payload.length;
  }
  return { bytes, inputs };
}
