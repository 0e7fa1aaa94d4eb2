import { defineConfig } from 'vitest/config';

// The embedded-default smoke test: the real server process with no DATABASE_URL and no REDIS_URL.
export default defineConfig({
  test: {
    include: ['test/smoke/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
