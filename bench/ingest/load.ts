/** A fixed-concurrency load generator over one keep-alive connection per worker (undici). */
import { Pool } from 'undici';

export interface LoadResult {
  seconds: number;
  ok: number;
  /** Answers by status code, 200 included. */
  statuses: Record<number, number>;
  /** Transport errors (no answer). */
  errors: number;
  /** Latencies of 200 answers, ms. */
  latencies: number[];
}

export async function runLoad(opts: { origin: string; path: string; headers: Record<string, string>; body: (i: number) => Buffer; concurrency: number; durationMs: number }): Promise<LoadResult> {
  const pool = new Pool(opts.origin, { connections: opts.concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const start = performance.now();
  const end = start + opts.durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const body = opts.body(i++);
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: 'POST', path: opts.path, headers: opts.headers, body });
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 200) latencies.push(performance.now() - t0);
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  return { seconds, ok: statuses[200] ?? 0, statuses, errors, latencies };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
