/**
 * CPU time of the servers a gateway call uses besides the gateway: Redis (its server process, found with INFO;
 * server-wide, so anything else using that Redis counts too) and Postgres (the backends connected to the bench's
 * own database, found in pg_stat_activity: the gateway's pool and nothing else; the WAL writer and checkpointer,
 * shared with every database of the server, are left out).
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuMs } from './proc-stats.ts';

export interface ServerCpu {
  /** Milliseconds of CPU so far (Redis), or per backend pid (Postgres). */
  redis(): number;
  postgres(): Promise<Map<number, number>>;
  close(): Promise<void>;
}

const safeCpu = (pid: number) => {
  try {
    return cpuMs(pid);
  } catch {
    return NaN;
  }
};

export async function serverCpu(redisUrl: string | undefined, databaseUrl: string | undefined): Promise<ServerCpu> {
  let redisPid = 0;
  if (redisUrl) {
    const r = new Redis(redisUrl);
    redisPid = Number(/process_id:(\d+)/.exec(await r.info('server'))?.[1] ?? 0);
    r.disconnect();
  }
  const client = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : undefined;
  await client?.connect();
  const database = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : '';
  return {
    redis: () => (redisPid ? safeCpu(redisPid) : NaN),
    postgres: async () => {
      const out = new Map<number, number>();
      if (!client) return out;
      const rows = (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])).rows;
      for (const { pid } of rows) out.set(pid, safeCpu(pid));
      return out;
    },
    close: async () => {
      await client?.end();
    },
  };
}

/** Postgres CPU (ms) spent between two snapshots: backends seen at the end, from their start value or from 0. */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, cpu] of after) if (Number.isFinite(cpu)) ms += cpu - (before.get(pid) ?? 0);
  return ms;
}
