#!/usr/bin/env node
/**
 * The `svc` command as npm links it: a shebang finds the system's node, which may be older than the Node 24 that runs
 * the TypeScript sources. On Node 24 this loads cli/svc.ts; on another Node from 18 on it runs this file again under
 * the Node 24 that npm install brought (launch/node-24.js); an older Node, or none found, stops with one sentence.
 *
 * Node's compile cache is switched on first, as in main.js: a command after the first reuses the stripped TypeScript
 * and compiled code (measured: about 150 ms less CPU per command). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
import { fileURLToPath } from 'url';
import { runOnNode24 } from '../launch/node-24.js';

if (runOnNode24(fileURLToPath(import.meta.url))) {
  import('node:module').then(({ enableCompileCache }) => {
    enableCompileCache();
    return import('./svc.ts');
  });
}
