import { receivePayment } from '../../../src/charges/charge-payment.service.js';
import { createTestContext, type Reply, type TestContext } from '../../support/context.js';
import { show } from './check.js';
import type { CallResult, Client } from './client.js';
import { draw, planArb, type PlanShape } from './plan.js';
import { checkBalances, verifyFinal } from './verify.js';
import { Workload } from './workload.js';

function inProcessClient(t: TestContext): Client {
  const wrap = (r: Reply): CallResult => ({
    status: r.status, body: r.body, raw: r.raw, replayed: r.headers['idempotent-replayed'] === 'true', uncertain: false,
  });
  return {
    merchant: async (key, method, url, body, idemKey) =>
      wrap(await t.request(method, url, { key, body, headers: idemKey ? { 'idempotency-key': idemKey } : {} })),
    admin: async (method, url, body) => wrap(await t.admin(method, url, body)),
    notify: (n) => receivePayment(t.rt, n),
    alwaysIdempotent: false,
    faults: false,
    db: t.pool,
  };
}

const CHECKPOINT_EVERY = 20;

export interface WorkloadReport {
  seed: number;
  merchants: number;
  batches: number;
  charges: number;
  withdrawals: number;
  ms: number;
  outcomes: Record<string, number>;
}

/** What a failure must say to be replayed. */
export function failureReport(seed: number, replay: string, w: Workload | null, err: unknown): Error {
  const lines = [
    `chaos workload failed with seed ${seed} — replay: CHAOS_SEED=${seed} ${replay}`,
    '(the plan replays exactly; thread timing does not, so a race may need a few replays)',
    ...(w ? ['last batches:', ...w.recent.map((b) => `  ${b}`)] : []),
    err instanceof Error ? `${err.name}: ${err.message}` : show(err),
  ];
  return new Error(lines.join('\n'), { cause: err });
}

/** Part 1: the seeded money workload in this process, over HTTP (app.inject), with its worker running. */
export async function runInProcess(seed: number, shape: PlanShape, replay: string): Promise<WorkloadReport> {
  const started = Date.now();
  const plan = draw(planArb(shape), seed);
  let t: TestContext | null = null;
  let w: Workload | null = null;
  try {
    t = await createTestContext({ SIM_PAYOUT_DELAY_MS: String(plan.simPayoutDelayMs), SIM_REFUND_DELAY_MS: String(plan.simRefundDelayMs) });
    w = new Workload(inProcessClient(t));
    await w.setup(plan);
    for (const [i, batch] of plan.batches.entries()) {
      await w.runBatch(batch, `batch ${i}`);
      // Now and then, with nothing in flight, every balance must already be exact (not only at the end).
      if ((i + 1) % CHECKPOINT_EVERY === 0) {
        await w.settle(30_000);
        await checkBalances(w);
      }
    }
    await w.settle(30_000);
    await verifyFinal(w);
    await t.assertLedger();
    return {
      seed, merchants: plan.merchants.length, batches: plan.batches.length, charges: w.model.charges.length,
      withdrawals: w.model.withdrawals.length, ms: Date.now() - started, outcomes: Object.fromEntries([...w.outcomes].sort()),
    };
  } catch (err) {
    throw failureReport(seed, replay, w, err);
  } finally {
    await t?.close();
  }
}
