import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { stockCharges } from './lib/fixtures.js';
import { RequestFailed } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { figures, metered, openLoop } from './lib/load.js';
import { startReceiver } from './lib/receiver.js';
import { printTable, summarise } from './lib/stats.js';

/** Issue 21's goal 2: p99 < 100 ms at 200 payments/s with one endpoint, and at 100/s into a merchant with 20 endpoints. */
const SCENARIOS = [
  { rate: 100, endpoints: 1 },
  { rate: 200, endpoints: 1 },
  { rate: 100, endpoints: 20 },
].filter((s) => !process.env.PAYMENT_WEBHOOK_ENDPOINTS || s.endpoints === Number(process.env.PAYMENT_WEBHOOK_ENDPOINTS));
const GOAL_MS = 100;

/**
 * Payment confirmation → CHARGE_PAID at a local receiver, end to end: the simulator's pay control at a constant
 * rate; latency = the receiver's arrival time of the payment's last CHARGE_PAID (of all its merchant's endpoints)
 * − the pay request's scheduled send time (the pay path, the commit, the dispatcher's claim, the signed POSTs).
 * Each scenario on its own merchant, one after another in one server.
 */
export const paymentWebhook: Benchmark = {
  name: 'payment-webhook',
  describe: `payment → CHARGE_PAID delivered to local receivers (${SCENARIOS.map((s) => `${s.rate}/s × ${s.endpoints} endpoint${s.endpoints > 1 ? 's' : ''}`).join(', ')})`,
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ pixgate, fx, pool, defer }) => {
      const waiting = new Map<string, { left: number; done: (at: number) => void }>();
      const receiver = await startReceiver((a) => {
        if (a.event.event !== 'CHARGE_PAID') return;
        const w = waiting.get(a.event.data.id as string);
        if (w && --w.left === 0) w.done(a.at);
      });
      defer(() => receiver.close());
      const durationMs = quick ? 3000 : 10_000;
      const sections: string[] = [];
      for (const { rate, endpoints } of SCENARIOS) {
        const { id, key } = await fx.merchant();
        for (let e = 0; e < endpoints; e++) await fx.endpoint(key, `${receiver.url}/pix/${e}`, ['CHARGE_PAID']);
        const charges = await stockCharges(pool, [id], Math.round((rate * durationMs) / 1000) + 50);
        const payLatencies: number[] = [];
        let payErrors = 0;
        const pay = (chargeId: string, scheduledAt: number) => new Promise<number>((resolve, reject) => {
          waiting.set(chargeId, {
            left: endpoints,
            done: (at) => {
              waiting.delete(chargeId);
              resolve(at - scheduledAt);
            },
          });
          fx.admin.request('POST', `/admin/simulator/charges/${chargeId}/pay`).then((res) => {
            if (res.status !== 200) throw new RequestFailed(String(res.status), res.text.slice(0, 200));
            payLatencies.push(performance.now() - scheduledAt);
          }).catch((err: unknown) => {
            payErrors++;
            waiting.delete(chargeId);
            reject(err);
          });
        });
        // Warm-up: 50 payments, not counted.
        await Promise.all(charges.splice(0, 50).map((c) => pay(c, performance.now())));
        payLatencies.length = 0;
        const run = await metered(cpuMeter(pixgate.child.pid!), () => openLoop({
          rate, durationMs, drainMs: 20_000, op: (i, scheduledAt) => pay(charges[i]!, scheduledAt),
        }));
        const label = endpoints > 1 ? `pay → the last of ${endpoints} CHARGE_PAID` : 'pay → CHARGE_PAID at the receiver';
        const e2e = figures(label, rate, run);
        const payRow = summarise('pay request (POST /admin/simulator/charges/{id}/pay)', payLatencies, {
          rate, errors: payErrors, elapsedMs: run.elapsedMs,
        });
        sections.push(printTable(`payment → CHARGE_PAID webhook, ${rate} payments/s, ${endpoints} endpoint(s), ${durationMs / 1000} s`, [payRow, e2e], [
          `**p99 = ${e2e.p99.toFixed(1)} ms** (goal < ${GOAL_MS} ms); errors ${e2e.errors} (a payment whose webhooks did not all arrive within 20 s counts as an error).`,
        ]));
      }
      return sections.join('\n');
    });
  },
};
