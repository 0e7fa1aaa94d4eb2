/**
 * The rig's bounded, sustained load through the balancer: `senders` loops posting one-event envelopes and
 * `callers` loops making chat calls (plain HTTP, no retries), each request with its own deadline. It records what
 * was acknowledged (event ids answered 200, calls answered 200), every other outcome by status, and every request
 * that was still unanswered at its deadline (a hang: the rig requires none). Failed requests are expected while a
 * node is killed or a dependency restarts, and are simply not counted as acknowledged.
 */
import { eventEnvelope, randomEventId, sentryAuth } from '../../ingest/support/ingest-helpers.ts';

export interface RigLoad {
  acked: Set<string>;
  answered(): number;
  /** Outcomes other than 200, by `<what> <status>` ('error' = no answer, e.g. a reset connection). */
  failures: Map<string, number>;
  /** Requests still unanswered at their deadline. */
  hangs(): number;
  /** The slowest request, answered or not, in milliseconds. */
  slowestMs(): number;
  /** Resolves once `events` more events and `calls` more calls were acknowledged than when it was called. */
  progress(events: number, calls: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startRigLoad(target: { url: string; project: { id: number; key: string }; gatewayKey: string }, opts: { senders: number; callers: number; deadlineMs: number }): RigLoad {
  const acked = new Set<string>();
  const failures = new Map<string, number>();
  let [answered, hangs, slowest] = [0, 0, 0];
  let running = true;

  /** One request with its deadline; returns the status, or undefined when it got no answer. */
  const request = async (what: string, url: string, init: RequestInit): Promise<number | undefined> => {
    const t0 = performance.now();
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.deadlineMs) });
      await res.arrayBuffer();
      if (res.status !== 200) failures.set(`${what} ${res.status}`, (failures.get(`${what} ${res.status}`) ?? 0) + 1);
      return res.status;
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') hangs++;
      failures.set(`${what} error`, (failures.get(`${what} error`) ?? 0) + 1);
      return undefined;
    } finally {
      slowest = Math.max(slowest, performance.now() - t0);
    }
  };

  const sender = async () => {
    while (running) {
      const id = randomEventId();
      const status = await request('ingest', `${target.url}/api/${target.project.id}/envelope/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(target.project.key) },
        body: new Uint8Array(eventEnvelope({ event_id: id, message: `rig ${id.slice(0, 6)}`, level: 'error' }, { event_id: id })),
      });
      if (status === 200) acked.add(id);
      else await pause(50);
    }
  };
  const caller = async () => {
    while (running) {
      const status = await request('gateway', `${target.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target.gatewayKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'rig' }] }),
      });
      if (status === 200) answered++;
      else await pause(50);
    }
  };
  const loops = [...Array.from({ length: opts.senders }, sender), ...Array.from({ length: opts.callers }, caller)];

  return {
    acked,
    failures,
    answered: () => answered,
    hangs: () => hangs,
    slowestMs: () => slowest,
    async progress(events, calls, timeoutMs = 60_000) {
      const [e0, c0] = [acked.size, answered];
      const end = Date.now() + timeoutMs;
      while (acked.size < e0 + events || answered < c0 + calls) {
        if (Date.now() > end) throw new Error(`no progress: ${acked.size - e0} events and ${answered - c0} calls in ${timeoutMs} ms; failures ${JSON.stringify([...failures])}`);
        await pause(50);
      }
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
