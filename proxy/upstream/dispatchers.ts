/**
 * One connection pool per upstream origin (and one ProxyAgent per outbound proxy), shared by every account that
 * calls it, with keep-alive and the configured timeouts. Accounts compose their interceptors on top
 * (upstream-interceptors.ts); the pools themselves live as long as the gateway.
 */
import { Pool, ProxyAgent, type Dispatcher } from 'undici';

export interface DispatcherOptions {
  /** Headers and body-idle timeout (SVC_UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
  connectTimeoutMs?: number;
  connections?: number;
}

export class Dispatchers {
  #opts: DispatcherOptions;
  #pools = new Map<string, Dispatcher>();

  constructor(opts: DispatcherOptions) {
    this.#opts = opts;
  }

  /** The dispatcher for `origin`, through `proxyUrl` when one is set. */
  for(origin: string, proxyUrl: string | null): Dispatcher {
    const id = proxyUrl ? `proxy ${proxyUrl}` : origin;
    let d = this.#pools.get(id);
    if (d === undefined) {
      const common = {
        headersTimeout: this.#opts.timeoutMs,
        bodyTimeout: this.#opts.timeoutMs,
        connectTimeout: this.#opts.connectTimeoutMs ?? 10_000,
        keepAliveTimeout: 30_000,
      };
      d = proxyUrl
        ? new ProxyAgent({ uri: proxyUrl, ...common, connections: this.#opts.connections ?? 256 })
        : new Pool(origin, { ...common, connections: this.#opts.connections ?? 256, pipelining: 1 });
      this.#pools.set(id, d);
    }
    return d;
  }

  async close(): Promise<void> {
    const all = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.allSettled(all.map((d) => d.close()));
  }
}
