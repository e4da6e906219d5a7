import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Benchmark } from './lib/context.js';
import { freshDatabase, runNotifyFloor, type BenchServer } from './lib/env.js';
import { withPixgate } from './lib/rig.js';
import { pool as mapPool, stockCharges } from './lib/fixtures.js';
import { HttpClient } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { figures, openLoop } from './lib/load.js';
import { startReceiver } from './lib/receiver.js';
import { printTable, summarise, type Figures } from './lib/stats.js';
import { verifyLedger } from '../src/ledger/verify.js';

/**
 * Sequential payouts against the NOTIFY floor, in one run: one merchant creates a withdrawal, waits until
 * WITHDRAWAL_COMPLETED reaches its webhook receiver (how a merchant learns it), then creates the next, for
 * `durationMs` after a warm-up (SIM_PAYOUT_DELAY_MS=0: the simulated network settles at once). Then the floor
 * (bench/servers/notify-floor.ts) on the same database server for as long. Each row: payouts (or hand-offs)
 * per second and CPU per operation; latency of a payout = its create request sent → its event received.
 */
export async function sequentialPayouts(
  server: BenchServer, o: { durationMs: number; root?: string; label?: string },
): Promise<{ payouts: Figures; floor: Figures; ratio: number }> {
  const label = o.label ?? 'sequential payouts';
  const payouts = await withPixgate(server, { env: { SIM_PAYOUT_DELAY_MS: '0' }, root: o.root }, async ({ pixgate, fx, pool, defer }) => {
    const arrived = new Map<string, number>();
    let waiting: { id: string; resolve: (at: number) => void } | null = null;
    const receiver = await startReceiver((a) => {
      const id = a.event.data.id as string;
      if (waiting?.id === id) waiting.resolve(a.at);
      else arrived.set(id, a.at);
    });
    defer(() => receiver.close());
    const merchant = await fx.merchant();
    await fx.endpoint(merchant.key, `${receiver.url}/payouts`, ['WITHDRAWAL_COMPLETED']);
    // 10,000.00 per charge: thousands of payouts of 10.00 (fee 0).
    for (const c of await stockCharges(pool, [merchant.id], 5, 1_000_000)) await fx.pay(c);
    const api = new HttpClient(pixgate.base, { maxSockets: 4 });
    defer(() => api.close());
    const auth = { authorization: `Bearer ${merchant.key}` };
    const one = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await api.json('POST', '/withdrawals', { amount: 1000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' }, 201, auth);
      const id = res.data.id as string;
      const at = arrived.get(id) ?? await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${id}: no WITHDRAWAL_COMPLETED within 10 s`)), 10_000);
        waiting = { id, resolve: (t) => { clearTimeout(timer); resolve(t); } };
      });
      waiting = null;
      arrived.delete(id);
      return at - t0;
    };
    const loop = async (ms: number) => {
      const latencies: number[] = [];
      const t0 = performance.now();
      while (performance.now() - t0 < ms) latencies.push(await one());
      return { latencies, elapsedMs: performance.now() - t0 };
    };
    await loop(Math.min(1000, o.durationMs / 4)); // warm-up: JIT, connections, prepared statements
    // What the server and PostgreSQL spend doing nothing (job slots polling, heartbeats): at a few dozen payouts
    // a second on a loaded machine it is much of the CPU per payout, so it is also given net of this.
    const meter = cpuMeter(pixgate.child.pid!);
    const idleMs = 2000;
    const stopIdle = meter();
    await sleep(idleMs);
    const idle = stopIdle();
    const stop = meter();
    const run = await loop(o.durationMs);
    const cpu = stop();
    const f = summarise(`${label}: create → WITHDRAWAL_COMPLETED received`, run.latencies, { rate: 0, errors: 0, elapsedMs: run.elapsedMs, cpu });
    const net = (busy: number, still: number) => (busy - (still * run.elapsedMs) / idleMs) / run.latencies.length;
    return { ...f, note: `net of idle: server ${net(cpu.server, idle.server).toFixed(2)}, db ${net(cpu.db, idle.db).toFixed(2)} ms/op` };
  });
  const floorDb = await freshDatabase(server);
  let floor: Figures;
  try {
    const f = await runNotifyFloor(floorDb.url, o.durationMs, cpuMeter);
    floor = summarise(`${label}: NOTIFY floor (insert+notify → update+notify)`, Array.from({ length: f.ops }, () => f.elapsedMs / f.ops), {
      rate: 0, errors: 0, elapsedMs: f.elapsedMs, cpu: f.cpu,
    });
  } finally {
    await floorDb.drop();
  }
  return { payouts, floor, ratio: payouts.throughput / floor.throughput };
}

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
      const table = printTable(`withdrawals: ${n} merchants, one withdrawal each per round`, rows, [
        `The COMPLETED rows' throughput is withdrawals processed per second (first created → last completed); ` +
          `at 1000/s the ${n} withdrawals arrive as a burst, so it is the worker's drain rate.`,
        'CPU per operation on the COMPLETED rows covers the whole withdrawal: its create request and its processing.',
        `Ledger after the runs: ${problems.length ? `BROKEN — ${problems.slice(0, 3).join('; ')}` : 'verifyLedger() found no problem'}.`,
      ]);
      return table;
    }).then(async (table) => {
      const seq = await sequentialPayouts(server, { durationMs: quick ? 2000 : 5000 });
      return table + printTable('sequential payouts vs the NOTIFY floor', [seq.payouts, seq.floor], [
        `**sequential payouts / NOTIFY floor = ${seq.ratio.toFixed(2)}** (goal ≥ 0.5). One merchant, one withdrawal at a time, ` +
          'each awaited until its WITHDRAWAL_COMPLETED webhook arrives; the floor hands a row to another session and back by NOTIFY.',
        `Payouts, CPU ${seq.payouts.note}.`,
      ]);
    });
  },
};
