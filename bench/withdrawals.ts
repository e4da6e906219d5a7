import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { pool as mapPool, stockCharges } from './lib/fixtures.js';
import { HttpClient } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { figures, openLoop } from './lib/load.js';
import { printTable, summarise, type Figures } from './lib/stats.js';
import { verifyLedger } from '../src/ledger/verify.js';

/**
 * Withdrawals processed per second: POST /withdrawals at a constant rate, one per merchant (a merchant
 * has at most one in progress), processed by the worker through the simulator with
 * SIM_PAYOUT_DELAY_MS=0, so the figure is Pixgate's processing, not the simulated network's delay.
 * Processing latency is created_at → completed_at as the database recorded them; throughput is
 * withdrawals completed / (last completed_at − first created_at).
 */
export const withdrawals: Benchmark = {
  name: 'withdrawals',
  describe: 'withdrawals created at a constant rate and processed to COMPLETED, per second',
  async run({ server, quick }) {
    const n = quick ? 100 : 300;
    return withPixgate(server, { env: { SIM_PAYOUT_DELAY_MS: '0' } }, async ({ pixgate, fx, pool }) => {
      const merchants = await fx.merchants(n);
      const funding = await stockCharges(pool, merchants.map((m) => m.id), n, 1_000_000);
      await mapPool(funding, 16, (c) => fx.pay(c));
      const api = new HttpClient(pixgate.base, { maxSockets: 64 });
      const rows: Figures[] = [];
      const meter = cpuMeter(pixgate.child.pid!);
      for (const rate of [100, 1000]) {
        const since = new Date();
        const stopMeter = meter();
        const run = await openLoop({
          rate, durationMs: (n * 1000) / rate,
          op: (i) => api.expect('POST', '/withdrawals', { amount: 1000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' }, 201, {
            authorization: `Bearer ${merchants[i]!.key}`,
          }).then(() => {}),
        });
        rows.push(figures(`POST /withdrawals at ${rate}/s`, rate, run));
        const deadline = Date.now() + 60_000;
        let open = n;
        while (open > 0 && Date.now() < deadline) {
          await sleep(100);
          open = Number((await pool.query(`SELECT count(*) FROM withdrawals WHERE created_at >= $1 AND status IN ('PENDING', 'PROCESSING')`, [since])).rows[0].count);
        }
        const { rows: done } = await pool.query<{ ms: number; status: string; created: number; completed: number }>(
          `SELECT extract(epoch FROM (coalesce(completed_at, updated_at) - created_at)) * 1000 AS ms, status,
                  extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM coalesce(completed_at, updated_at)) * 1000 AS completed
           FROM withdrawals WHERE created_at >= $1`, [since]);
        const ok = done.filter((d) => d.status === 'COMPLETED');
        const span = Math.max(...ok.map((d) => Number(d.completed))) - Math.min(...done.map((d) => Number(d.created)));
        rows.push(summarise(`created → COMPLETED (worker), offered ${rate}/s`, ok.map((d) => Number(d.ms)), {
          rate, errors: done.length - ok.length + open, elapsedMs: span, cpu: stopMeter(),
        }));
      }
      api.close();
      const problems = await verifyLedger(pool);
      return printTable(`withdrawals: ${n} merchants, one withdrawal each per round`, rows, [
        `The COMPLETED rows' throughput is withdrawals processed per second (first created → last completed); ` +
          `at 1000/s the ${n} withdrawals arrive as a burst, so it is the worker's drain rate.`,
        'CPU per operation on the COMPLETED rows covers the whole withdrawal: its create request and its processing.',
        `Ledger after the runs: ${problems.length ? `BROKEN — ${problems.slice(0, 3).join('; ')}` : 'verifyLedger() found no problem'}.`,
      ]);
    });
  },
};
