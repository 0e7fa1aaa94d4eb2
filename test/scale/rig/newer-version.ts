/**
 * A "newer version" of svc for the rig's rolling upgrade: this checkout with one more, additive migration. It is a
 * directory whose main.js, server/ and migrations/ are copies (so the server reads this directory's migrations)
 * and whose other folders are links to this checkout; a node started with its main.js is the new version.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const COPIED = new Set(['main.js', 'package.json', 'server', 'migrations']);

export interface NewerVersion {
  /** The new version's main.js. */
  main: string;
  /** The migration only the new version has. */
  migration: string;
  /** Its version (what /healthz and /api/v1/meta answer): this checkout's with `-newer`. */
  version: string;
  cleanup(): void;
}

/** `sql`: the additive migration (new tables, new nullable columns) that the new version brings. */
export function newerVersion(sql: string): NewerVersion {
  const dir = mkdtempSync(join(tmpdir(), 'svc-newer-'));
  for (const entry of readdirSync(ROOT)) {
    if (entry === '.git' || entry === 'data') continue;
    if (COPIED.has(entry)) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    else symlinkSync(join(ROOT, entry), join(dir, entry));
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const version = `${pkg.version}-newer`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  // Named after every migration of this checkout, so it sorts last.
  const migration = '20991231T2359-rig-additive.sql';
  writeFileSync(join(dir, 'migrations', migration), sql);
  return { main: join(dir, 'main.js'), migration, version, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
