/**
 * The node's health checks, by name. Two questions are asked of them:
 * - GET /api/v1/health: is every dependency up? One check down makes the answer 503.
 * - GET /healthz: can this node accept requests and keep them? Only the checks registered with keepsRequests count.
 *   A node whose database is restarting still answers 200 here while it can journal what it accepts and serve keys
 *   from its caches, so a database restart does not make a load balancer drop every node at once.
 *
 * Features register their own checks at start (e.g. a durable writer: "can I still journal?"). A check answers
 * { ok, ...details } (or throws = down); each gets at most CHECK_TIMEOUT_MS. Results are kept for CACHE_MS so that
 * frequent load-balancer probes cost the database at most one `SELECT 1` per second per node.
 */
export interface CheckState {
  ok: boolean;
  [detail: string]: unknown;
}

export type Check = () => Promise<CheckState> | CheckState;

export interface CheckResult extends CheckState {
  status: 'up' | 'down';
  latency_ms: number;
  error?: string;
}

export interface HealthReport {
  /** Every check is up (/api/v1/health). */
  ok: boolean;
  /** Every check that decides whether this node can accept and keep requests is up (/healthz). */
  keepsRequests: boolean;
  checks: Record<string, CheckResult>;
}

export const CHECK_TIMEOUT_MS = 2000;
export const CACHE_MS = 1000;

async function run(check: Check): Promise<CheckResult> {
  const t = performance.now();
  const ms = () => Math.round((performance.now() - t) * 10) / 10;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS).unref();
    });
    const state = await Promise.race([Promise.resolve().then(check), timeout]);
    return { ...state, status: state.ok ? 'up' : 'down', latency_ms: ms() };
  } catch (e) {
    return { ok: false, status: 'down', latency_ms: ms(), error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

export class HealthChecks {
  #checks = new Map<string, { check: Check; keepsRequests: boolean }>();
  #cached: { at: number; report: Promise<HealthReport> } | undefined;

  /** Adds (or replaces) a check. keepsRequests: it also decides /healthz (this node can accept and keep requests). */
  add(name: string, check: Check, opts: { keepsRequests?: boolean } = {}): void {
    this.#checks.set(name, { check, keepsRequests: opts.keepsRequests ?? false });
    this.#cached = undefined;
  }

  /** Runs every check, at most once per CACHE_MS (concurrent probes share one run). */
  report(): Promise<HealthReport> {
    const hit = this.#cached;
    if (hit && performance.now() - hit.at < CACHE_MS) return hit.report;
    const report = this.#run();
    this.#cached = { at: performance.now(), report };
    return report;
  }

  async #run(): Promise<HealthReport> {
    const results = await Promise.all([...this.#checks].map(async ([name, c]) => [name, await run(c.check), c.keepsRequests] as const));
    return {
      ok: results.every(([, r]) => r.ok),
      keepsRequests: results.every(([, r, keeps]) => !keeps || r.ok),
      checks: Object.fromEntries(results.map(([name, r]) => [name, r])),
    };
  }
}
