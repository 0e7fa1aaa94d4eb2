/**
 * `node launch/check-node-24.js && …` in npm scripts: npm puts node_modules/.bin first on PATH, where npm install
 * linked Node 24; when it is missing (an unsupported platform, optional dependencies left out) this says so in one
 * sentence instead of letting a tool fail on an older node with an error about something else.
 */
import { stopUnlessNode24 } from './node-24.js';

stopUnlessNode24();
