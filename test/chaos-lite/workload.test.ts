import { describe, expect, it } from 'vitest';
import { runInProcess } from '../chaos/workload/in-process.js';
import { chaosSeed } from '../chaos/workload/plan.js';

// The short version of the randomised money workload (the full one and the fault injection: npm run test:chaos).
describe('randomised money workload (short)', () => {
  it('concurrent charges, payments, splits, refunds, disputes and withdrawals keep every balance and invariant', async () => {
    const report = await runInProcess(chaosSeed(), {
      merchants: { min: 8, max: 14 }, batches: 70, batchSize: { min: 4, max: 14 }, notify: true,
    }, 'npx vitest run test/chaos-lite');
    console.log(`chaos-lite: seed ${report.seed}, ${report.merchants} merchants, ${report.charges} charges, `
      + `${report.withdrawals} withdrawals, ${report.ms} ms`);
    if (process.env.CHAOS_VERBOSE) console.log(report.outcomes);
    expect(report.charges).toBeGreaterThan(0);
  }, 180_000);
});
