import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, REAL_PG, type TestDatabase } from '../../test/support/test-db.ts';
import { createPgDb } from './pg-db.ts';
import { listMigrations, migrate } from './migrate.ts';

describe('migrations', () => {
  let tdb: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'svc-mig-'));
  beforeAll(async () => {
    tdb = await createTestDatabase();
    writeFileSync(join(dir, '20260101T0000-a.sql'), 'CREATE TABLE a (x int); INSERT INTO a VALUES (1);');
    writeFileSync(join(dir, '20260101T0001-b.sql'), 'INSERT INTO a VALUES (2);');
  });
  afterAll(async () => {
    await tdb.db.close();
    await tdb.drop();
  });

  it('applies files in name order once and records them', async () => {
    expect(await migrate(tdb.db, dir)).toEqual(['20260101T0000-a.sql', '20260101T0001-b.sql']);
    expect(await migrate(tdb.db, dir)).toEqual([]);
    const rows = await tdb.db.query<{ x: number }>('SELECT x FROM a ORDER BY x');
    expect(rows.rows.map((r) => r.x)).toEqual([1, 2]);
  });

  it.skipIf(!REAL_PG)('applies each file once when two nodes migrate at the same time', async () => {
    writeFileSync(join(dir, '20260101T0002-c.sql'), 'INSERT INTO a VALUES (3);');
    const other = createPgDb(tdb.url as string, 2);
    const [one, two] = await Promise.all([migrate(tdb.db, dir), migrate(other, dir)]);
    await other.close();
    expect([...one, ...two]).toEqual(['20260101T0002-c.sql']);
    expect((await tdb.db.query('SELECT 1 FROM a WHERE x = 3')).rowCount).toBe(1);
  });

  it('refuses file names that are not UTC timestamps', () => {
    const bad = mkdtempSync(join(tmpdir(), 'svc-mig-'));
    writeFileSync(join(bad, 'init.sql'), '');
    expect(() => listMigrations(bad)).toThrow(/20261122T0900/);
  });
});
