/**
 * An upgrade of the embedded database across Postgres majors (docs/operations.md, "Upgrading the embedded
 * database"). The older major is the machine's own Postgres binaries (`pg_config --bindir`), standing in for the
 * previous `embedded-postgres` package: a cluster created with them, rows written through svc, then a start with
 * the installed binaries refuses and says what to run, a start with SVC_EMBEDDED_UPGRADE_FROM copies every row into
 * a new cluster and keeps the old one, and a start interrupted between the two renames finishes them.
 * Skipped, saying so, where no other major is installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterMajor, startChildPostgres } from '../../core/db/child-postgres.ts';
import { createEmbeddedDb, postgresDir } from '../../core/db/embedded-db.ts';
import { keptDir, UPGRADE_ENV } from '../../core/db/major-upgrade.ts';
import { migrate } from '../../core/db/migrate.ts';
import { createPgDb } from '../../core/db/pg-db.ts';
import { postgresBinaries } from '../../core/db/postgres-binaries.ts';
import { createLogger } from '../../core/logger.ts';
import { MIGRATIONS_DIR } from '../../server/open-context.ts';
import { EVENTS, expectSameRows, writeRowsThroughSvc } from './support/write-rows.ts';

function machineBinaries(): string | undefined {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

const oldBin = machineBinaries();
const [installed, old] = await Promise.all([postgresBinaries(), oldBin ? postgresBinaries(oldBin) : undefined]);
const usable = old !== undefined && old.major < installed.major;
if (!usable) process.stderr.write(`major-upgrade tests skipped: no Postgres binaries of an older major than ${installed.version} on this machine (pg_config --bindir)\n`);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.skipIf(!usable)(`upgrading the embedded database from ${old?.version} to ${installed.version}`, () => {
  it('refuses with what to run, then copies every row with the old binaries named, keeping the old cluster', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-major-upgrade-'));
    dirs.push(dir);
    const pgDir = postgresDir(dir);
    const before = await startChildPostgres(pgDir, { binDir: oldBin });
    const db = createPgDb(before.url);
    await migrate(db, MIGRATIONS_DIR);
    await writeRowsThroughSvc(dir, db);
    await before.stop();
    expect(clusterMajor(join(pgDir, 'data'))).toBe(old!.major);

    const opts = { log: createLogger('silent'), migrationsDir: MIGRATIONS_DIR };
    const refusal = await createEmbeddedDb(dir, opts).then(() => undefined, (e: Error & { code?: string }) => e);
    expect(refusal?.code).toBe('embedded_postgres_upgrade_needed');
    expect(refusal?.message).toContain(`created by PostgreSQL ${old!.major}`);
    expect(refusal?.message).toContain('npm install --no-save --prefix');
    expect(refusal?.message).toContain(`${UPGRADE_ENV}=`);
    expect(clusterMajor(join(pgDir, 'data'))).toBe(old!.major);

    const lines: string[] = [];
    const log = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l).msg) });
    const upgraded = await createEmbeddedDb(dir, { ...opts, log, upgradeFrom: oldBin });
    const kept = await startChildPostgres(keptDir(pgDir, old!.major), { binDir: oldBin });
    const keptDb = createPgDb(kept.url, 2);
    try {
      expect(lines.join('\n')).toMatch(new RegExp(`upgrading from PostgreSQL ${old!.major}[\\s\\S]*every count matches[\\s\\S]*kept as`));
      expect(clusterMajor(join(pgDir, 'data'))).toBe(installed.major);
      expect(await expectSameRows(keptDb, upgraded)).toBeGreaterThan(20);
      expect((await upgraded.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v).toMatch(new RegExp(`^${installed.major}\\.`));
    } finally {
      await keptDb.close();
      await kept.stop();
      await upgraded.close();
    }

    // Interrupted between the renames: the verified copy is put in place on the next start.
    renameSync(pgDir, `${pgDir}.upgrade-${installed.major}`);
    writeFileSync(join(`${pgDir}.upgrade-${installed.major}`, 'copy-verified'), '');
    const again = await createEmbeddedDb(dir, opts);
    expect((await again.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(EVENTS);
    await again.close();
  });

  it('refuses binaries of another major than the cluster', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-major-upgrade-'));
    dirs.push(dir);
    const before = await startChildPostgres(postgresDir(dir), { binDir: oldBin });
    await before.stop();
    const wrong = join(dir, 'wrong-bin');
    mkdirSync(wrong);
    symlinkSync(installed.initdb, join(wrong, 'initdb'));
    symlinkSync(installed.postgres, join(wrong, 'postgres'));
    await expect(createEmbeddedDb(dir, { log: createLogger('silent'), migrationsDir: MIGRATIONS_DIR, upgradeFrom: wrong })).rejects.toMatchObject({ code: 'embedded_postgres_upgrade_wrong_binaries' });
  });
});
