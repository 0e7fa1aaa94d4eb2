/** A database of its own for one bench run on the server of `base` (a Postgres URL), dropped afterwards. */
import pg from 'pg';
import { randomHex } from '../core/ids.ts';

export async function freshDatabase(base: string, prefix = 'svc_bench'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomHex(4)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}
