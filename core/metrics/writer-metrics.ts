/**
 * Metrics of the hot-path writers (core/writes/durable-writer.ts: events, usage records, call bodies, compression
 * records): queue depth, journal bytes and whether the database is down, read from the live writers at scrape
 * time, and the time each committed batch took, observed once per batch.
 *
 * Writers belong to the process, not to a node's context (they are built deep inside each feature), so these
 * are process-wide: every registry of the process shows the same writers, summed by name. A node is a process
 * in production; only tests run several nodes in one.
 */
import { Gauge, type Registry } from 'prom-client';
import { HistogramFamily, type HistogramCell } from './metric-families.ts';

/** What a writer shows (DurableWriter implements it). */
export interface WriterView {
  readonly name: string;
  /** Rows reserved, queued or being written. */
  readonly pending: number;
  readonly journalBytes: number;
  readonly databaseDown: boolean;
  readonly stats: { readonly committed: number; readonly journaled: number; readonly rejected: number };
}

const BATCH_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const batchTimes = new HistogramFamily('svc_writer_batch_duration_seconds', 'Time to commit one batch of a writer (one transaction), by writer.', ['writer'], BATCH_S);
const live = new Set<WeakRef<WriterView>>();

/** Called by a writer when it starts; it is shown until it is dropped or untracked. */
export function trackWriter(w: WriterView): { batchTime: HistogramCell; untrack(): void } {
  const ref = new WeakRef(w);
  live.add(ref);
  return { batchTime: batchTimes.cell(w.name), untrack: () => live.delete(ref) };
}

function liveWriters(): WriterView[] {
  const out: WriterView[] = [];
  for (const ref of live) {
    const w = ref.deref();
    if (w === undefined) live.delete(ref);
    else out.push(w);
  }
  return out;
}

function sumByName(pick: (w: WriterView) => number): Map<string, number> {
  const sums = new Map<string, number>();
  for (const w of liveWriters()) sums.set(w.name, (sums.get(w.name) ?? 0) + pick(w));
  return sums;
}

/** Registers the writer metrics on a node's registry. */
export function registerWriterMetrics(registry: Registry): void {
  const gauge = (name: string, help: string, pick: (w: WriterView) => number, extra: string[] = []) =>
    new Gauge({
      name, help, labelNames: ['writer', ...extra], registers: [registry],
      collect() {
        this.reset();
        for (const [writer, v] of sumByName(pick)) this.set({ writer }, v);
      },
    });
  gauge('svc_writer_queue_rows', 'Rows waiting in a writer: reserved, queued or being written.', (w) => w.pending);
  gauge('svc_writer_journal_bytes', "Bytes in a writer's local journal (rows kept while the database is unreachable).", (w) => w.journalBytes);
  gauge('svc_writer_database_down', '1 while a writer sends its batches to the local journal because the database is unreachable.', (w) => (w.databaseDown ? 1 : 0));
  new Gauge({
    name: 'svc_writer_rows', help: 'Rows a writer made durable since it started, by how (committed, journaled, rejected for their content).',
    labelNames: ['writer', 'result'], registers: [registry],
    collect() {
      this.reset();
      for (const result of ['committed', 'journaled', 'rejected'] as const) {
        for (const [writer, v] of sumByName((w) => w.stats[result])) this.set({ writer, result }, v);
      }
    },
  });
  registry.registerMetric(batchTimes as never);
}
