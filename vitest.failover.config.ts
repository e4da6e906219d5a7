import { defineConfig } from 'vitest/config';

/**
 * `npm run test:failover`: pg_auto_failover on this machine and the service riding out a failover
 * (test/failover/*.e2e.ts; the unit and pool tests of test/failover run in `npm test`).
 */
export default defineConfig({
  test: {
    include: ['test/failover/**/*.e2e.ts'],
    testTimeout: 480_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
