/**
 * What the embedded benchmark measures, each started the way a first `npm start` starts it, in a fresh directory:
 * svc as one `--role all` process on its embedded default (no DATABASE_URL: svc runs Postgres as its child process,
 * initdb included); and, for the throughput reference only, svc on the machine's Postgres server (DATABASE_URL).
 * No Redis anywhere: an embedded node keeps its counters in memory. (PGlite, the embedded default before, is no
 * longer an engine svc can run; its figures stay in docs/performance.md.)
 */
import { freshDatabase } from '../fresh-database.ts';
import { startChild, type Child } from '../ingest/child-process.ts';
import { ADMIN, SECRET } from '../ingest/svc-api.ts';

export interface RunningEngine {
  svc: Child;
  stop(): Promise<void>;
}

export interface Engine {
  /** For --engines: embedded, server. */
  id: string;
  name: string;
  /** False for the machine's server: its memory is not the service's, and it was started long before. */
  measuresMemory: boolean;
  start(dir: string): Promise<RunningEngine>;
}

const SVC_ENV = { SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: SECRET, LOG_LEVEL: 'warn', NODE_ENV: 'production', PORT: '0', REDIS_URL: '' };
const serve = (env: Record<string, string>) => startChild(['main.js', 'serve', '--role', 'all'], { ...SVC_ENV, ...env });

/** svc on a database already running; the database goes with svc, or at once when svc does not start. */
async function serveOn(dir: string, databaseUrl: string, stopDb: () => Promise<void>): Promise<RunningEngine> {
  try {
    const svc = await serve({ SVC_DATA_DIR: dir, DATABASE_URL: databaseUrl });
    return { svc, stop: async () => { await svc.stop(); await stopDb(); } };
  } catch (err) {
    await stopDb();
    throw err;
  }
}

export const EMBEDDED: Engine = {
  id: 'embedded',
  name: 'embedded default (Postgres, child process)',
  measuresMemory: true,
  async start(dir) {
    const svc = await serve({ SVC_DATA_DIR: dir, DATABASE_URL: '' });
    return { svc, stop: () => svc.stop() };
  },
};

/** svc on a fresh database of the machine's Postgres server: the real-Postgres throughput the targets refer to. */
export function serverPostgres(databaseUrl: string): Engine {
  return {
    id: 'server',
    name: 'Postgres server (reference)',
    measuresMemory: false,
    async start(dir) {
      const db = await freshDatabase(databaseUrl, 'svc_bench_embedded');
      return serveOn(dir, db.url, () => db.drop());
    },
  };
}
