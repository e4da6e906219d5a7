import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { stockCharges } from './lib/fixtures.js';
import { RequestFailed } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { openLoop } from './lib/load.js';
import { startReceiver } from './lib/receiver.js';
import { printTable, summarise, type Figures } from './lib/stats.js';

const ENDPOINTS = 20;

/**
 * Webhook deliveries per second: one merchant with 20 endpoints subscribed to CHARGE_PAID (all on the
 * local receiver), payments at a constant rate, so each payment fans out to 20 deliveries. Latency is
 * the receiver's arrival − the pay request's scheduled time; throughput is deliveries received per
 * second over the round. Rounds step the offered rate up and stop once the deliveries fall behind.
 */
export const webhooks: Benchmark = {
  name: 'webhooks',
  describe: `webhook deliveries per second (${ENDPOINTS} endpoints per payment)`,
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ pixgate, fx, pool, defer }) => {
      const arrivals = new Map<string, number[]>();
      const receiver = await startReceiver((a) => {
        if (a.event.event !== 'CHARGE_PAID') return;
        const list = arrivals.get(a.event.data.id as string);
        if (list) list.push(a.at);
      });
      defer(() => receiver.close());
      const { id, key } = await fx.merchant();
      for (let e = 0; e < ENDPOINTS; e++) await fx.endpoint(key, `${receiver.url}/hook/${e}`, ['CHARGE_PAID']);
      const durationMs = quick ? 1500 : 3000;
      const rows: Figures[] = [];
      const meter = cpuMeter(pixgate.child.pid!);
      for (const payRate of [10, 25, 50, 80]) {
        const charges = await stockCharges(pool, [id], Math.ceil((payRate * durationMs) / 1000));
        const stopMeter = meter();
        const sentAt = new Map<string, number>();
        let payErrors = 0;
        const run = await openLoop({
          rate: payRate, durationMs,
          op: async (i, scheduledAt) => {
            const chargeId = charges[i]!;
            sentAt.set(chargeId, scheduledAt);
            arrivals.set(chargeId, []);
            const res = await fx.admin.request('POST', `/admin/simulator/charges/${chargeId}/pay`);
            if (res.status !== 200) {
              payErrors++;
              throw new RequestFailed(String(res.status));
            }
          },
        });
        const expected = run.latencies.length * ENDPOINTS;
        const deadline = performance.now() + 30_000;
        const received = () => [...sentAt.keys()].reduce((sum, c) => sum + (arrivals.get(c)?.length ?? 0), 0);
        while (received() < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const latencies: number[] = [];
        let first = Infinity;
        let last = 0;
        for (const [c, t] of sentAt) {
          first = Math.min(first, t);
          for (const at of arrivals.get(c) ?? []) {
            latencies.push(at - t);
            last = Math.max(last, at);
          }
          arrivals.delete(c);
        }
        const offered = payRate * ENDPOINTS;
        const f = summarise(`deliveries, offered ${offered}/s (${payRate} payments/s)`, latencies, {
          rate: offered, errors: expected - latencies.length + payErrors * ENDPOINTS, elapsedMs: last - first, cpu: stopMeter(),
        });
        rows.push(f);
        if (f.throughput < offered * 0.9 || f.errors > 0) break;
      }
      return printTable(`webhook deliveries: ${ENDPOINTS} endpoints per CHARGE_PAID, rounds of ${durationMs / 1000} s`, rows, [
        'Latency: pay request scheduled → delivery received. Throughput: deliveries received per second, first pay → last delivery. ' +
          'A round stops the series when it falls below 90% of the offered rate; its throughput is then the drain rate. ' +
          'CPU per operation is per delivery, and includes the payment that caused it (1/20 of it).',
      ]);
    });
  },
};
