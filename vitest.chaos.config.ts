import { defineConfig } from 'vitest/config';

/** `npm run test:chaos`: the long randomised workload and the fault-injection run (test/chaos). */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
