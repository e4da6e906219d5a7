import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { startReceiver } from '../../bench/lib/receiver.js';
import { httpClient, retryingExecutor, type HttpStats } from './faults/http-client.js';
import { RestartablePostgres } from './faults/postgres.js';
import { ServiceProcess } from './faults/service.js';
import { ApiFleet, checkWebhooks, freePort, SUBSCRIBED } from './faults/fleet.js';
import { failureReport } from './workload/in-process.js';
import { chaosSeed, draw, planArb } from './workload/plan.js';
import { verifyFinal } from './workload/verify.js';
import { Workload } from './workload/workload.js';

/**
 * Part 3: a fleet on one database — 2 `pixgate api` and 2 `pixgate worker` processes — with the seeded
 * workload spread over both APIs and SIGKILLs of each kind of process in turn (one down at a time).
 * Every merchant has a webhook endpoint. Afterwards: every withdrawal and refund in exactly one final
 * state, balances and invariants as the history implies, every event delivered, no attempt recorded
 * twice. CHAOS_FLEET_SECONDS bounds the workload (default 60).
 */
const WORKLOAD_MS = Number(process.env.CHAOS_FLEET_SECONDS ?? 60) * 1000;
const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
const MIN_BATCHES = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const faultArb = fc.record({
  gapsMs: fc.array(fc.integer({ min: 1000, max: 3000 }), { minLength: 100, maxLength: 100 }),
  downMs: fc.array(fc.integer({ min: 0, max: 800 }), { minLength: 100, maxLength: 100 }),
  /** Which process dies first; then each in turn, so both kinds die several times. */
  first: fc.nat(3),
});

describe('a fleet of 2 api and 2 worker processes', () => {
  it('SIGKILLs of APIs and workers mid-workload: one final state each, balances, invariants, webhooks once', async () => {
    const started = Date.now();
    const seed = chaosSeed();
    const plan = draw(planArb({ merchants: { min: 6, max: 10 }, batches: 200, batchSize: { min: 4, max: 10 }, notify: false }), seed);
    const faults = draw(faultArb, seed);
    const dir = join(PROJECT_ROOT, '.data', 'test', `fleet-${process.pid}`);
    const stats: HttpStats = { lostAnswers: 0, retries: 0, longestClaimWaitMs: 0 };
    const arrivals = new Map<string, number>();
    const receiver = await startReceiver((a) => arrivals.set(a.event.id, (arrivals.get(a.event.id) ?? 0) + 1));
    let pgServer: RestartablePostgres | null = null;
    const procs: ServiceProcess[] = [];
    let pool: pg.Pool | null = null;
    let w: Workload | null = null;
    let batches = 0;
    try {
      pgServer = await RestartablePostgres.start(dir);
      const admin = new pg.Client({ connectionString: pgServer.url() });
      await admin.connect();
      await admin.query('CREATE DATABASE pixgate');
      await admin.end();

      const ENCRYPTION_KEY = randomBytes(32).toString('hex');
      const env = (name: string) => ({
        DATABASE_URL: pgServer!.url('pixgate'), ADMIN_TOKEN, ENCRYPTION_KEY, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '300',
        SIM_PAYOUT_DELAY_MS: String(plan.simPayoutDelayMs), SIM_REFUND_DELAY_MS: String(plan.simRefundDelayMs),
        RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: 'silent', PIXGATE_DATA_DIR: join(dir, name),
      });
      const [api1, api2] = [new ServiceProcess(await freePort(), env('api1'), 'api'), new ServiceProcess(await freePort(), env('api2'), 'api')];
      const [worker1, worker2] = [new ServiceProcess(0, env('worker1'), 'worker'), new ServiceProcess(0, env('worker2'), 'worker')];
      procs.push(api1, worker1, api2, worker2);
      await api1.start(); // migrates first; the others find nothing to apply
      await Promise.all([api2.start(), worker1.start(), worker2.start()]);

      pool = createPool(pgServer.url('pixgate'), 4);
      const apis = new ApiFleet([api1, api2]);
      w = new Workload(httpClient(apis, ADMIN_TOKEN, retryingExecutor(pool), stats));
      await w.setup(plan);
      for (const m of w.model.merchants) {
        const r = await w.client.merchant(m.key, 'POST', '/webhooks', {
          url: `${receiver.url}/m${m.index}`, events: SUBSCRIBED,
        }, w.key());
        expect(r.status, JSON.stringify(r.body)).toBe(201);
      }

      let stop = false;
      const kills = new Map<string, number>();
      const t0 = Date.now();
      const chaos = (async () => {
        for (let i = 0; !stop; i++) {
          await sleep(faults.gapsMs[i % faults.gapsMs.length]!);
          if (stop) return;
          // api, worker, api, worker...: each kind dies early even when restarts are slow.
          const victim = procs[(faults.first * 2 + i) % procs.length]!;
          await victim.kill();
          kills.set(victim.command, (kills.get(victim.command) ?? 0) + 1);
          await sleep(faults.downMs[i % faults.downMs.length]!);
          await victim.start();
        }
      })();
      try {
        // The workload time, and on until each kind of process died and MIN_BATCHES ran (a loaded machine is slow).
        const enough = () => (kills.get('api') ?? 0) >= 1 && (kills.get('worker') ?? 0) >= 1 && batches >= MIN_BATCHES;
        while ((Date.now() - t0 < WORKLOAD_MS || !enough()) && Date.now() - t0 < 5 * WORKLOAD_MS) {
          await w.runBatch(plan.batches[batches % plan.batches.length]!, `batch ${batches}`);
          batches++;
        }
      } finally {
        stop = true;
        await chaos;
      }
      expect(batches, 'batches run').toBeGreaterThanOrEqual(MIN_BATCHES);
      expect(kills.get('api') ?? 0, 'APIs killed').toBeGreaterThanOrEqual(1);
      expect(kills.get('worker') ?? 0, 'workers killed').toBeGreaterThanOrEqual(1);

      // A last kill of both workers: the recovery sweeps run when a worker starts.
      for (const worker of [worker1, worker2]) await worker.kill();
      await Promise.all([worker1.start(), worker2.start()]);
      const settleStarted = Date.now();
      await w.settle(150_000);
      const settleMs = Date.now() - settleStarted;
      await verifyFinal(w);
      const hooks = await checkWebhooks(pool, arrivals, 90_000);
      for (const p of procs) expect(p.crashes, `${p.command} exited on its own`).toEqual([]);

      console.log([
        `chaos fleet: seed ${seed}; 2 api + 2 worker processes; SIGKILLs: ${[...kills].map(([k, n]) => `${n} ${k}`).join(', ')} (+2 workers before the final checks)`,
        `  ${plan.merchants.length} merchants, ${batches} batches, ${w.model.charges.length} charges, ${w.model.withdrawals.length} withdrawals`,
        `  ${stats.lostAnswers} answers lost, ${stats.retries} requests retried (the longest wait on a cut-off claim ${stats.longestClaimWaitMs} ms); `
          + `final settlement took ${settleMs} ms; total ${Date.now() - started} ms`,
        `  webhooks: ${hooks.pairs} (event, endpoint) pairs each with one successful attempt recorded; ${hooks.attempts} attempts recorded, `
          + `${hooks.redelivered} events received more than once (at least once: a process killed between sending and recording)`,
      ].join('\n'));
      // Claims do not outlive their request (docs/contract/http.md#idempotency-claims): a retry cut off by a kill or a
      // database restart is answered within 10 s.
      expect(stats.longestClaimWaitMs, 'a retry waited on a cut-off claim').toBeLessThan(10_000);
    } catch (err) {
      const context = ` (crashes: ${procs.flatMap((p) => p.crashes.map((c) => `${p.command}: ${c}`)).join(' | ') || 'none'})`;
      throw failureReport(seed, 'npm run test:chaos -- test/chaos/fleet.test.ts' + context, w, err);
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await pool?.end();
      await pgServer?.close();
      await receiver.close();
    }
  });
});
