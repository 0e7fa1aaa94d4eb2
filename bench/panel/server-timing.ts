/**
 * The server-side time of every HTTP request the in-process node answers, from Node's own HTTP diagnostics channels:
 * from the request's head parsed (`http.server.request.start`) to the response's end handed to the socket
 * (`http.server.response.finish`). This is what "answers in under 300 ms server-side" measures: no browser, no
 * client, no loopback. The node must run in this process.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

export interface ServedRequest {
  method: string;
  /** Path and query as requested. */
  url: string;
  ms: number;
}

export interface ServerTimes {
  /** The requests finished since the last take (and forgets them). */
  take(): ServedRequest[];
  stop(): void;
}

export function recordServerTimes(): ServerTimes {
  const started = new WeakMap<IncomingMessage, number>();
  let done: ServedRequest[] = [];
  const onStart = (m: unknown) => started.set((m as { request: IncomingMessage }).request, performance.now());
  const onFinish = (m: unknown) => {
    const req = (m as { request: IncomingMessage }).request;
    const t0 = started.get(req);
    if (t0 !== undefined) done.push({ method: req.method ?? 'GET', url: req.url ?? '', ms: performance.now() - t0 });
  };
  subscribe('http.server.request.start', onStart);
  subscribe('http.server.response.finish', onFinish);
  return {
    take: () => {
      const out = done;
      done = [];
      return out;
    },
    stop: () => {
      unsubscribe('http.server.request.start', onStart);
      unsubscribe('http.server.response.finish', onFinish);
    },
  };
}
