/**
 * Forward-only SQL migrations from migrations/, named by UTC timestamp (20261122T0900-name.sql), applied in name
 * order and recorded in schema_migrations. An advisory lock makes two nodes starting at once apply each file once.
 *
 * Within v1 migrations are additive, so a node runs against a schema newer than its own. A migration that older
 * builds cannot write against raises the schema level (table schema_level); a build that knows a lower level than
 * the database's refuses to start after migrating.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';
import { LOCKS, type Db } from './db.ts';

/** The schema level this build writes correctly (migrations/…-schema-level.sql). */
export const SCHEMA_LEVEL = 2;

const NAME = /^\d{8}T\d{4,6}-[a-z0-9-]+\.sql$/;

export function listMigrations(dir: string): string[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  for (const f of files) {
    if (!NAME.test(f)) throw new Error(`Migration file name ${f} must look like 20261122T0900-what-it-does.sql`);
  }
  return files;
}

export async function migrate(db: Db, dir: string, onApplied: (name: string) => void = () => {}): Promise<string[]> {
  const files = listMigrations(dir);
  return db.withLock(LOCKS.migrate, async () => {
    await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    const applied: string[] = [];
    for (const name of files) {
      if (done.has(name)) continue;
      const sql = readFileSync(join(dir, name), 'utf8');
      await db.tx(async (q) => {
        await q.exec(sql);
        await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      });
      applied.push(name);
      onApplied(name);
    }
    await checkSchemaLevel(db);
    return applied;
  });
}

async function checkSchemaLevel(db: Db): Promise<void> {
  const exists = await db.query("SELECT 1 FROM pg_class WHERE relname = 'schema_level'");
  if (exists.rows.length === 0) return;
  const level = (await db.query<{ level: number }>('SELECT level FROM schema_level WHERE id = 1')).rows[0]?.level ?? 0;
  if (level > SCHEMA_LEVEL) {
    throw new ConfigError(
      'DATABASE_URL',
      `holds a schema of level ${level}, newer than this build's ${SCHEMA_LEVEL}: a migration applied by a newer version changed tables this one writes. Run the newer version on this node`,
    );
  }
}
