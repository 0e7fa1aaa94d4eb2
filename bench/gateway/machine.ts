/** A one-line description of the machine a benchmark ran on. */
import { cpus, totalmem } from 'node:os';
import pg from 'pg';

export async function describeMachine(databaseUrl: string | undefined, redisUrl: string | undefined): Promise<string> {
  const cpu = cpus();
  let db = 'embedded Postgres (PGlite)';
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    const v = (await c.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    await c.end();
    db = `PostgreSQL ${v} (local)`;
  }
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM, Node ${process.version}, ${db}, ${redisUrl ? 'Redis (local)' : 'in-memory counters'}; load generator, upstream, bare proxy and gateway share the machine`;
}
