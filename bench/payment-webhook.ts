import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { stockCharges } from './lib/fixtures.js';
import { RequestFailed } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { figures, metered, openLoop } from './lib/load.js';
import { startReceiver } from './lib/receiver.js';
import { printTable, summarise } from './lib/stats.js';

const RATE = 100;

/**
 * Payment confirmation → CHARGE_PAID at a local receiver, end to end: the simulator's pay control at a
 * constant 100 payments/s; latency = the receiver's arrival time − the pay request's scheduled send time
 * (the pay path, the commit, the job pickup, the signed POST).
 */
export const paymentWebhook: Benchmark = {
  name: 'payment-webhook',
  describe: `payment → CHARGE_PAID delivered to a local receiver at ${RATE}/s (end to end)`,
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ pixgate, fx, pool, defer }) => {
      const waiting = new Map<string, (at: number) => void>();
      const receiver = await startReceiver((a) => {
        if (a.event.event === 'CHARGE_PAID') waiting.get(a.event.data.id as string)?.(a.at);
      });
      defer(() => receiver.close());
      const durationMs = quick ? 3000 : 10_000;
      const { id, key } = await fx.merchant();
      await fx.endpoint(key, `${receiver.url}/pix`, ['CHARGE_PAID']);
      const charges = await stockCharges(pool, [id], Math.round((RATE * durationMs) / 1000) + 50);
      // Warm-up: 50 payments, not counted.
      await Promise.all(charges.splice(0, 50).map((c) => fx.pay(c)));
      const payLatencies: number[] = [];
      let payErrors = 0;
      const run = await metered(cpuMeter(pixgate.child.pid!), () => openLoop({
        rate: RATE, durationMs, drainMs: 20_000,
        op: (i, scheduledAt) => new Promise<number>((resolve, reject) => {
          const chargeId = charges[i]!;
          waiting.set(chargeId, (at) => {
            waiting.delete(chargeId);
            resolve(at - scheduledAt);
          });
          fx.admin.request('POST', `/admin/simulator/charges/${chargeId}/pay`).then((res) => {
            if (res.status !== 200) throw new RequestFailed(String(res.status), res.text.slice(0, 200));
            payLatencies.push(performance.now() - scheduledAt);
          }).catch((err: unknown) => {
            payErrors++;
            waiting.delete(chargeId);
            reject(err);
          });
        }),
      }));
      const e2e = figures('pay → CHARGE_PAID at the receiver', RATE, run);
      const pay = summarise('pay request (POST /admin/simulator/charges/{id}/pay)', payLatencies, {
        rate: RATE, errors: payErrors, elapsedMs: run.elapsedMs,
      });
      return printTable(`payment → CHARGE_PAID webhook, ${RATE} payments/s for ${durationMs / 1000} s`, [pay, e2e], [
        `**p99 pay → webhook = ${e2e.p99.toFixed(1)} ms** (goal < 100 ms at ${RATE}/s); errors ${e2e.errors} (a payment whose webhook never arrived within 20 s counts as an error).`,
      ]);
    });
  },
};
