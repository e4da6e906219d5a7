import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { stockCharges } from './lib/fixtures.js';
import { RequestFailed } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { figures, metered, openLoop, pooled, type RunResult } from './lib/load.js';
import { startHangingReceiver, startReceiver } from './lib/receiver.js';
import { printTable, type Figures } from './lib/stats.js';

// The goal's rate is 100/s; FAIRNESS_RATE compares at a rate the machine sustains without the hanging merchant.
const RATE_B = Number(process.env.FAIRNESS_RATE ?? 100);
// Rounds of (alone, hanging), interleaved so that a disturbance of the machine falls on both alike.
const ROUNDS = Number(process.env.FAIRNESS_ROUNDS ?? 3);
const RATE_A = 10;
const ENDPOINTS_A = Number(process.env.FAIRNESS_A_ENDPOINTS ?? 20);
const TIMEOUT_MS = 3000;

/**
 * Merchant B's pay → CHARGE_PAID at its receiver, at 100 payments/s, on a fresh Pixgate; with `hanging`,
 * merchant A's 20 endpoints never answer while A is paid 10 times a second (200 deliveries/s that each
 * hold a slot for the whole timeout, four times what the fast lane has).
 */
async function runB(server: Parameters<Benchmark['run']>[0]['server'], durationMs: number, hanging: boolean): Promise<RunResult> {
  return withPixgate(server, { env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } }, async ({ pixgate, fx, pool, defer }) => {
    const waiting = new Map<string, (at: number) => void>();
    const receiver = await startReceiver((a) => {
      if (a.event.event === 'CHARGE_PAID') waiting.get(a.event.data.id as string)?.(a.at);
    });
    defer(() => receiver.close());
    const b = await fx.merchant();
    await fx.endpoint(b.key, `${receiver.url}/b`, ['CHARGE_PAID']);
    const chargesB = await stockCharges(pool, [b.id], Math.round((RATE_B * durationMs) / 1000) + 50);
    await Promise.all(chargesB.splice(0, 50).map((c) => fx.pay(c)));

    let loadA: Promise<unknown> = Promise.resolve();
    if (hanging) {
      const hang = await startHangingReceiver();
      defer(() => hang.close());
      const a = await fx.merchant();
      for (let e = 0; e < ENDPOINTS_A; e++) await fx.endpoint(a.key, `${hang.url}/a/${e}`, ['CHARGE_PAID']);
      const chargesA = await stockCharges(pool, [a.id], Math.round((RATE_A * (durationMs + TIMEOUT_MS)) / 1000));
      // A starts one timeout ahead, so B is measured with A's deliveries already hanging.
      loadA = openLoop({ rate: RATE_A, durationMs: durationMs + TIMEOUT_MS, op: (i) => fx.pay(chargesA[i]!).then(() => undefined) });
      await new Promise((r) => setTimeout(r, TIMEOUT_MS));
    }

    const run = await metered(cpuMeter(pixgate.child.pid!), () => openLoop({
      rate: RATE_B, durationMs, drainMs: 20_000,
      op: (i, scheduledAt) => new Promise<number>((resolve, reject) => {
        const chargeId = chargesB[i]!;
        waiting.set(chargeId, (at) => {
          waiting.delete(chargeId);
          resolve(at - scheduledAt);
        });
        fx.admin.request('POST', `/admin/simulator/charges/${chargeId}/pay`).then((res) => {
          if (res.status !== 200) throw new RequestFailed(String(res.status), res.text.slice(0, 200));
        }).catch((err: unknown) => {
          waiting.delete(chargeId);
          reject(err);
        });
      }),
    }));
    await loadA;
    return run;
  });
}

const label = (hanging: boolean, round?: number) => (hanging
  ? `B: pay → CHARGE_PAID, while A's ${ENDPOINTS_A} endpoints hang (A paid ${RATE_A}/s)`
  : 'B: pay → CHARGE_PAID, alone') + (round === undefined ? `, ${ROUNDS} rounds pooled` : `, round ${round}`);

export const webhookFairness: Benchmark = {
  name: 'webhook-fairness',
  describe: `merchant B's CHARGE_PAID p99 at ${RATE_B}/s, alone and while merchant A's ${ENDPOINTS_A} endpoints hang`,
  async run({ server, quick }) {
    const durationMs = quick ? 5000 : 15_000;
    const runs: Record<'alone' | 'hanging', RunResult[]> = { alone: [], hanging: [] };
    const rows: Figures[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const hanging of [false, true]) {
        const run = await runB(server, durationMs, hanging);
        runs[hanging ? 'hanging' : 'alone'].push(run);
        rows.push(figures(label(hanging, round), RATE_B, run));
      }
    }
    const alone = figures(label(false), RATE_B, pooled(runs.alone));
    const withA = figures(label(true), RATE_B, pooled(runs.hanging));
    const ratio = withA.p99 / alone.p99;
    return printTable(`webhook fairness: B at ${RATE_B} payments/s for ${durationMs / 1000} s per run, WEBHOOK_TIMEOUT_MS=${TIMEOUT_MS}`, [...rows, alone, withA], [
      `**p99 with A hanging / p99 alone (${ROUNDS} rounds pooled) = ${withA.p99.toFixed(1)} / ${alone.p99.toFixed(1)} ms = ${ratio.toFixed(2)}×** (goal ≤ 2×). ` +
        'A payment whose webhook did not arrive within 20 s after the run counts as an error.',
    ]);
  },
};
