#!/usr/bin/env node
/**
 * The svc server entry point: `node main.js serve|migrate` (the commands are in server/server-command.ts).
 *
 * Plain JavaScript on purpose. First it makes sure of Node 24 (launch/node-24.js: a system node from 18 on runs
 * this file again under the Node 24 that npm install brought; an older one, or none found, stops with one sentence).
 * Then Node's compile cache is switched on before anything else is loaded: a start after the first reuses the
 * stripped TypeScript and the compiled code, so the type-stripping compiler is never loaded. Measured: 24 MB less
 * resident memory per process and less than half the start time. The cache lives in the system's temporary
 * directory (NODE_COMPILE_CACHE chooses another; NODE_DISABLE_COMPILE_CACHE=1 turns it off). A node serving on the
 * embedded default first takes its memory settings (launch/embedded-memory.js).
 */
import { fileURLToPath } from 'url';
import { applyEmbeddedMemorySettings } from './launch/embedded-memory.js';
import { runOnNode24 } from './launch/node-24.js';

// Promises rather than top-level await, so that a Node too old for it still reaches the sentence above.
if (runOnNode24(fileURLToPath(import.meta.url))) {
  applyEmbeddedMemorySettings(fileURLToPath(import.meta.url));
  import('node:module')
    .then(({ enableCompileCache }) => {
      enableCompileCache();
      return Promise.all([import('./core/config.ts'), import('./server/server-command.ts')]);
    })
    .then(([{ ConfigError }, { main }]) => main().catch((err) => {
      if (err instanceof ConfigError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(78);
      }
      throw err;
    }))
    .catch((err) => {
      process.stderr.write(`svc failed to start: ${(err && err.stack) || err}\n`);
      process.exit(1);
    });
}
