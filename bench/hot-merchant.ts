import { SLO_MS, type Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { pool as mapPool, stockCharges } from './lib/fixtures.js';
import { cpuMeter } from './lib/cpu.js';
import { bestRows, closedLoop, findCapacities, metered, openLoop, type CapacityTarget, type Operation } from './lib/load.js';
import { startReceiver } from './lib/receiver.js';
import { printTable } from './lib/stats.js';
import { verifyLedger } from '../src/ledger/verify.js';

const SPREAD = 100;

/**
 * Ledger contention: payments all credited to one merchant (one `available` row, locked by every
 * posting) against payments spread over 100 merchants. Charges are stocked in the database before
 * each run; the runs pay them through the simulator's pay control at a constant rate. Every merchant has
 * an endpoint subscribed to CHARGE_PAID on a local receiver, as a live merchant would. Each scenario's
 * figure is its highest sustained rate (p99 ≤ SLO, no errors). The ledger is verified afterwards.
 */
export const hotMerchant: Benchmark = {
  name: 'hot-merchant',
  describe: `payments to 1 hot merchant vs spread over ${SPREAD} merchants (ledger contention)`,
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ pixgate, fx, pool, defer }) => {
      const receiver = await startReceiver(() => {});
      defer(() => receiver.close());
      // As in production, each merchant listens for CHARGE_PAID: the fan-out is part of the payment.
      const merchants = await mapPool(Array.from({ length: SPREAD }, (_, i) => i), 8, async () => {
        const m = await fx.merchant();
        await fx.endpoint(m.key, `${receiver.url}/pix`, ['CHARGE_PAID']);
        return m;
      });
      const scenarios = [
        { label: `spread over ${SPREAD} merchants`, ids: merchants.map((m) => m.id) },
        { label: '1 hot merchant', ids: [merchants[0]!.id] },
      ];
      const durationMs = quick ? 1200 : 2500;
      const meter = cpuMeter(pixgate.child.pid!);
      const targets: CapacityTarget[] = [];
      for (const s of scenarios) {
        const stock: string[] = [];
        const ensure = async (n: number) => {
          if (stock.length < n) stock.push(...(await stockCharges(pool, s.ids, n - stock.length + 200)));
        };
        const op: Operation = () => fx.pay(stock.pop()!).then(() => {});
        await ensure(1500);
        await closedLoop({ concurrency: 8, durationMs: 300, op });
        await ensure(1500);
        const estimate = await closedLoop({ concurrency: 32, durationMs: quick ? 700 : 1500, op });
        targets.push({
          label: s.label, estimate,
          prepare: (rate) => ensure(Math.ceil((rate * durationMs) / 1000) + 50),
          run: (rate) => metered(meter, () => openLoop({ rate, durationMs, op })),
        });
      }
      const searches = await findCapacities(targets, { sloMs: SLO_MS, steps: quick ? 3 : 5 });
      const best = bestRows(searches);
      const trials = searches.flatMap((s) => s.trials);
      const problems = await verifyLedger(pool);
      const [spread, hot] = best;
      return [
        printTable('payments: 1 hot merchant vs spread', best, [
          `Each row: the highest constant arrival rate of pay requests with p99 ≤ ${SLO_MS} ms and zero errors (runs of ${durationMs / 1000} s, both searches in lockstep).`,
          `**hot / spread = ${((hot!.rate / spread!.rate) * 100).toFixed(0)}%** (goal ≥ 50%). ` +
            `Ledger after the runs: ${problems.length ? `BROKEN — ${problems.slice(0, 3).join('; ')}` : 'verifyLedger() found no problem'}.`,
        ]),
        `<details><summary>every run</summary>\n\n${printTable('payments: every run of the capacity searches', trials)}\n</details>\n`,
      ].join('\n');
    });
  },
};
