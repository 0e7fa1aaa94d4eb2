/**
 * A closed-loop load generator: `concurrency` workers send requests back to back for `durationMs` over one undici
 * pool; each request's latency (until the last body byte) and time to first body byte are kept.
 */
import { Pool } from 'undici';

export interface LoadSpec {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  concurrency: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  latencies: Float64Array;
  ttfbs: Float64Array;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const pool = new Pool(spec.origin, { connections: spec.concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const lat: number[] = [];
  const ttfb: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + spec.durationMs;
  const worker = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: 'POST', path: spec.path, headers: spec.headers, body: spec.body });
        let first = 0;
        for await (const chunk of res.body) if (first === 0 && (chunk as Buffer).length > 0) first = performance.now();
        if (res.statusCode !== 200) {
          errors++;
          continue;
        }
        const t1 = performance.now();
        lat.push(t1 - t0);
        ttfb.push((first || t1) - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { requests: lat.length, errors, seconds, latencies: Float64Array.from(lat).sort(), ttfbs: Float64Array.from(ttfb).sort() };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
