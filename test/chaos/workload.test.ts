import { describe, expect, it } from 'vitest';
import { runInProcess } from './workload/in-process.js';
import { chaosSeed, type PlanShape } from './workload/plan.js';

/**
 * Part 1 of the proof: the seeded money workload, CHAOS_RUNS plans (default 6) one after another, each
 * against a fresh database. Plans alternate between many merchants and a few merchants under heavy
 * contention (bigger batches over the same balances). CHAOS_SEED (with CHAOS_SHAPE, the shape of the
 * first plan) replays a plan.
 */
const runs = Number(process.env.CHAOS_RUNS ?? 6);
const firstShape = Number(process.env.CHAOS_SHAPE ?? 0);
const SHAPES: PlanShape[] = [
  { merchants: { min: 10, max: 20 }, batches: 150, batchSize: { min: 6, max: 16 }, notify: true },
  { merchants: { min: 3, max: 5 }, batches: 100, batchSize: { min: 12, max: 20 }, notify: true },
];

describe('randomised money workload', () => {
  it(`${runs} seeded plans: balances, ledger and exactly-once invariants hold`, async () => {
    let seed = chaosSeed();
    for (let i = 0; i < runs; i++, seed = (seed + 7919) % 2_147_483_647) {
      const shape = (firstShape + i) % SHAPES.length;
      const report = await runInProcess(seed, SHAPES[shape]!, `CHAOS_SHAPE=${shape} CHAOS_RUNS=1 npm run test:chaos -- test/chaos/workload.test.ts`);
      console.log(`chaos workload: seed ${report.seed}, ${report.merchants} merchants, ${report.batches} batches, `
        + `${report.charges} charges, ${report.withdrawals} withdrawals, ${report.ms} ms\n`
        + Object.entries(report.outcomes).map(([k, n]) => `  ${k}: ${n}`).join('\n'));
      expect(report.charges).toBeGreaterThan(0);
    }
  });
});
