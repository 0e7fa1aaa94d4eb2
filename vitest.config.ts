import { defineConfig } from 'vitest/config';

/**
 * Two tiers (docs/testing.md): `npm test` runs the `fast` project, `npm run test:slow` the `slow` one, CI both.
 * A test file is slow when it matches SLOW: it starts processes, databases or a browser of its own beyond the one
 * server under test, or it takes more than about 20 s alone on a loaded machine. Name a new one `*.slow.test.ts`, or
 * put it in one of the folders below; nothing else needs changing.
 */
const SLOW = [
  '**/*.slow.test.ts',
  '**/*.browser.test.ts', // headless Chromium
  'test/faults/**/*.test.ts', // databases and nodes restarted, killed or cut off
  'test/scale/**/*.test.ts', // several nodes behind a load balancer, Redis Cluster, read replicas
  'test/agents/**/*.test.ts', // coding agents and SDK clients driven end to end for many turns
  // Heavy files from before the tiers, listed rather than renamed.
  'test/ingest/durable-ack.test.ts', // nodes killed with and without Postgres, journals replayed
  'test/ingest/ingest-fuzz.test.ts', // thousands of mutated requests
];
const NEVER = ['node_modules/**', 'data/**'];

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    // Sized for a loaded 2-core machine: the longest fast test took 28 s there (two embedded-database starts).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['**/*.test.ts'], exclude: [...NEVER, ...SLOW] } },
      // One file at a time: these tests load the machine themselves, and leave the timing to the tests' own waits.
      { extends: true, test: { name: 'slow', include: SLOW, exclude: NEVER, fileParallelism: false, testTimeout: 180_000, hookTimeout: 180_000 } },
    ],
  },
});
