import { describe, expect, it } from 'vitest';
import { runInProcess } from './workload/in-process.js';
import { chaosSeed } from './workload/plan.js';

/**
 * Part 1 of the proof: the seeded money workload, CHAOS_RUNS plans (default 3) one after another,
 * each against a fresh database. CHAOS_SEED replays the first plan.
 */
const runs = Number(process.env.CHAOS_RUNS ?? 3);

describe('randomised money workload', () => {
  it(`${runs} seeded plans: balances, ledger and exactly-once invariants hold`, async () => {
    let seed = chaosSeed();
    for (let i = 0; i < runs; i++, seed = (seed + 7919) % 2_147_483_647) {
      const report = await runInProcess(seed, {
        merchants: { min: 10, max: 20 }, batches: 80, batchSize: { min: 6, max: 16 }, notify: true,
      }, 'npm run test:chaos -- test/chaos/workload.test.ts');
      console.log(`chaos workload: seed ${report.seed}, ${report.merchants} merchants, ${report.batches} batches, `
        + `${report.charges} charges, ${report.withdrawals} withdrawals, ${report.ms} ms\n`
        + Object.entries(report.outcomes).map(([k, n]) => `  ${k}: ${n}`).join('\n'));
      expect(report.charges).toBeGreaterThan(0);
    }
  });
});
