/**
 * HTTP request metrics: requests by route family, style and status, and their duration by family. The family is
 * worked out once per route from the route's registered path (never from the request's URL), the style is the
 * route's declared wire style (gateway routes), so every label value is fixed at registration.
 */
import { CounterFamily, HistogramFamily, type CounterCell, type HistogramCell } from './metric-families.ts';

export type RouteFamily = 'gateway' | 'ingest' | 'api' | 'mcp' | 'meta' | 'metrics' | 'panel' | 'unmatched';

/** The family of a registered route path; undefined (no route matched) is `unmatched`. */
export function routeFamily(url: string | undefined): RouteFamily {
  if (url === undefined) return 'unmatched';
  if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1beta')) return 'gateway';
  if (url.startsWith('/api/:project/') || url.startsWith('/js/')) return 'ingest';
  if (url === '/metrics') return 'metrics';
  if (url === '/healthz' || url === '/api/v1/health' || url === '/api/v1/meta' || url === '/api/v1/openapi.json') return 'meta';
  if (url === '/mcp' || url.startsWith('/mcp/')) return 'mcp';
  if (url.startsWith('/api/')) return 'api';
  return 'panel';
}

const DURATION_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The cells of one route, by status (a handful per route). */
export class RouteCells {
  readonly family: RouteFamily;
  readonly style: string;
  readonly duration: HistogramCell;
  #byStatus = new Map<number, CounterCell>();
  #metrics: HttpMetrics;

  constructor(metrics: HttpMetrics, family: RouteFamily, style: string) {
    this.#metrics = metrics;
    this.family = family;
    this.style = style;
    this.duration = metrics.duration.cell(family);
  }

  /** One finished request. */
  count(status: number, durationMs: number): void {
    let cell = this.#byStatus.get(status);
    if (cell === undefined) {
      cell = this.#metrics.requests.cell(this.family, this.style, String(status));
      this.#byStatus.set(status, cell);
    }
    cell.value += 1;
    this.duration.observe(durationMs / 1000);
  }
}

export class HttpMetrics {
  readonly requests = new CounterFamily('svc_http_requests_total', 'HTTP requests by route family, wire style (gateway routes; none elsewhere) and status.', ['family', 'style', 'status']);
  readonly duration = new HistogramFamily('svc_http_request_duration_seconds', 'HTTP request duration by route family, until the last byte of the answer.', ['family'], DURATION_S);

  /** Cells of a route (keep them per route). */
  route(url: string | undefined, style: string | undefined): RouteCells {
    return new RouteCells(this, routeFamily(url), style ?? 'none');
  }

  families(): (CounterFamily | HistogramFamily)[] {
    return [this.requests, this.duration];
  }
}
