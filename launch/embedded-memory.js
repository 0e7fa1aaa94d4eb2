/**
 * Memory settings of a node serving on the embedded default (no DATABASE_URL): the one that must fit a laptop,
 * svc and its Postgres together under 300 MB. Both settings are read only when a process starts, so a node that
 * lacks them replaces itself (process.execve: same pid, same streams, no second process) with the same command plus
 * them, once, before anything else is loaded:
 *
 * - V8's young generation at most 8 MB per semi-space. On a machine with gigabytes free, V8 lets it grow to 64 MB
 *   (128 MB committed) under ingest load; short-lived objects then die in a smaller space, collected more often.
 * - V8's old generation collected once it has grown by half over what the last full collection kept
 *   (--heap-growing-percent=50; V8 otherwise lets it grow by a factor of up to 4 when memory is plentiful). Not a
 *   cap: the heap still grows as far as the live data needs, so no out-of-memory crash comes from it. Under the
 *   embedded bench's ingest load svc held about 140-160 MB instead of 180-240 (request and batch buffers promoted to
 *   the old generation were freed sooner), for 10-25 % more CPU per event; 20 % kept 115-140 MB but cost 40-80 %.
 * - glibc's malloc returns freed blocks of 64 KB and more to the system (MALLOC_MMAP_THRESHOLD_,
 *   MALLOC_TRIM_THRESHOLD_). Without them its adaptive threshold keeps request and batch buffers in a heap that
 *   never shrinks: 89 MB against 27 MB after 10 s of the embedded bench's load.
 *
 * Measured in docs/performance.md (the embedded default). A setting the operator already chose (NODE_OPTIONS, node's
 * own flags, the environment) is left as it is. Servers with DATABASE_URL keep V8's and glibc's defaults: there the
 * larger young generation and the lazier old generation cost memory that buys gateway CPU per call.
 *
 * Plain JavaScript, run by main.js before the TypeScript sources load.
 */

/** V8's flags and their values (both are V8 flags of Node 24, the version svc runs on: launch/node-24.js). */
const V8_FLAGS = [['--max-semi-space-size', '8'], ['--heap-growing-percent', '50']];
const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '1048576' };
const OTHER_COMMANDS = ['migrate', 'journal'];

/** Whether `node main.js <args>` serves on the embedded default (a serve command, no DATABASE_URL). */
function servesEmbedded(args, env) {
  return !env.DATABASE_URL && !args.some((a) => OTHER_COMMANDS.includes(a) || a === '--help' || a === '-h');
}

/**
 * Replaces this process with one that has the embedded default's memory settings, when it serves on the embedded
 * default without them; returns only when nothing is to change (or the platform cannot replace a process).
 */
export function applyEmbeddedMemorySettings(script) {
  const args = process.argv.slice(2);
  const env = process.env;
  if (!servesEmbedded(args, env) || typeof process.execve !== 'function') return;
  // V8 takes its flags with dashes or underscores.
  const own = [env.NODE_OPTIONS || ''].concat(process.execArgv).join(' ').replace(/_/g, '-');
  const flags = V8_FLAGS.filter((f) => !own.includes(f[0])).map((f) => f[0] + '=' + f[1]);
  const missingEnv = process.platform === 'linux' ? Object.keys(MALLOC_ENV).filter((k) => env[k] === undefined) : [];
  if (flags.length === 0 && missingEnv.length === 0) return;
  const nextEnv = Object.assign({}, env);
  for (const k of missingEnv) nextEnv[k] = MALLOC_ENV[k];
  process.execve(process.execPath, [process.execPath].concat(process.execArgv, flags, [script], args), nextEnv);
}
