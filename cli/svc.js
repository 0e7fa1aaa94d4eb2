#!/usr/bin/env node
/**
 * The `svc` command as npm links it: a shebang finds the system's node, which may be older than the Node 24 that runs
 * the TypeScript sources. On Node 24 this loads cli/svc.ts; on another Node from 18 on it runs cli/svc.ts under the
 * Node 24 that npm install brought (launch/node-24.js); an older Node, or none found, stops with one sentence.
 */
import { fileURLToPath } from 'url';
import { runOnNode24 } from '../launch/node-24.js';

if (runOnNode24(fileURLToPath(new URL('svc.ts', import.meta.url)))) import('./svc.ts');
