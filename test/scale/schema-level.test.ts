/** A node whose build is older than a non-additive migration already applied refuses to start and says why. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate, SCHEMA_LEVEL } from '../../core/db/migrate.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

it('refuses a database whose schema level is newer than the build', async () => {
  await migrate(t.db, MIGRATIONS_DIR);
  expect((await t.db.query<{ level: number }>('SELECT level FROM schema_level')).rows[0].level).toBe(SCHEMA_LEVEL);
  // Migrating again at the same level is fine.
  await expect(migrate(t.db, MIGRATIONS_DIR)).resolves.toEqual([]);
  // A newer version applied a migration this build cannot write against.
  await t.db.query('UPDATE schema_level SET level = $1', [SCHEMA_LEVEL + 1]);
  await expect(migrate(t.db, MIGRATIONS_DIR)).rejects.toThrow(`holds a schema of level ${SCHEMA_LEVEL + 1}, newer than this build's ${SCHEMA_LEVEL}`);
});
