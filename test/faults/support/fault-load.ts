/**
 * The bounded load the fault suite keeps on a node while it breaks things: `senders` loops posting one-event
 * envelopes over HTTP, and `callers` loops making chat calls with the official OpenAI SDK (no retries). It records
 * what was acknowledged (event ids answered 200, calls answered) and follows the node when it is replaced (the
 * target URL is read before every request). Failed requests are expected during faults and are simply not counted.
 */
import OpenAI from 'openai';
import { eventEnvelope, randomEventId, sentryAuth } from '../../ingest/support/ingest-helpers.ts';

export interface LoadTarget {
  url(): string;
  project: { id: number; key: string };
  gatewayKey: string;
}

export interface FaultLoad {
  acked: Set<string>;
  answered(): number;
  /** Requests that got no answer or a status other than 200, by status ('error' = no answer). */
  failures: Map<string, number>;
  /** Resolves once `n` more events and `calls` more calls have been acknowledged than when it was called. */
  progress(n: number, calls?: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startFaultLoad(target: LoadTarget, opts: { senders: number; callers: number }): FaultLoad {
  const acked = new Set<string>();
  const failures = new Map<string, number>();
  const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);
  let answered = 0;
  let running = true;

  const sender = async () => {
    while (running) {
      const id = randomEventId();
      try {
        const res = await fetch(`${target.url()}/api/${target.project.id}/envelope/`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-sentry-envelope', ...sentryAuth(target.project.key) },
          body: new Uint8Array(eventEnvelope({ event_id: id, message: `fault ${id.slice(0, 6)}`, level: 'error' }, { event_id: id })),
          signal: AbortSignal.timeout(30_000),
        });
        await res.arrayBuffer();
        if (res.status === 200) acked.add(id);
        else {
          fail(`ingest ${res.status}`);
          await pause(50);
        }
      } catch {
        fail('ingest error');
        await pause(100);
      }
    }
  };
  const caller = async () => {
    while (running) {
      const client = new OpenAI({ apiKey: target.gatewayKey, baseURL: `${target.url()}/v1`, maxRetries: 0, timeout: 30_000 });
      try {
        const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'fault suite' }] });
        if (r.choices[0]?.message.content) answered++;
      } catch (e) {
        fail(`gateway ${(e as { status?: number }).status ?? 'error'}`);
        await pause(100);
      }
    }
  };
  const loops = [...Array.from({ length: opts.senders }, sender), ...Array.from({ length: opts.callers }, caller)];

  return {
    acked,
    failures,
    answered: () => answered,
    async progress(n, calls = 0, timeoutMs = 60_000) {
      const [e0, c0] = [acked.size, answered];
      const end = Date.now() + timeoutMs;
      while (acked.size < e0 + n || answered < c0 + calls) {
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
