import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { httpClient, retryingExecutor, type HttpStats } from './faults/http-client.js';
import { RestartablePostgres } from './faults/postgres.js';
import { ServiceProcess } from './faults/service.js';
import { failureReport } from './workload/in-process.js';
import { chaosSeed, draw, planArb } from './workload/plan.js';
import { verifyFinal } from './workload/verify.js';
import { Workload } from './workload/workload.js';

/**
 * Part 2 of the proof: the seeded workload against the real service process, which is SIGKILLed at
 * random moments and started again, while PostgreSQL itself is restarted once mid-run. Afterwards
 * every withdrawal and refund must have reached exactly one final state, and every balance, posting
 * and event must be what the history implies. CHAOS_FAULT_SECONDS bounds the workload (default 75).
 */
const WORKLOAD_MS = Number(process.env.CHAOS_FAULT_SECONDS ?? 75) * 1000;
const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';

const faultArb = fc.record({
  gapsMs: fc.array(fc.integer({ min: 1000, max: 5000 }), { minLength: 100, maxLength: 100 }),
  downMs: fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 100, maxLength: 100 }),
  /** When PostgreSQL is restarted, in percent of the workload's time (the next fault after it). */
  pgRestartAtPercent: fc.integer({ min: 25, max: 60 }),
  pgDownMs: fc.integer({ min: 100, max: 2500 }),
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fault injection', () => {
  it('SIGKILLs of the service and a PostgreSQL restart mid-workload: one final state each, balances and invariants hold', async () => {
    const started = Date.now();
    const seed = chaosSeed();
    const plan = draw(planArb({ merchants: { min: 8, max: 14 }, batches: 200, batchSize: { min: 4, max: 10 }, notify: false }), seed);
    const faults = draw(faultArb, seed);
    const dir = join(PROJECT_ROOT, '.data', 'test', `run-${process.pid}`);
    const stats: HttpStats = { lostAnswers: 0, retries: 0, longestClaimWaitMs: 0 };
    let pgServer: RestartablePostgres | null = null;
    let service: ServiceProcess | null = null;
    let pool: pg.Pool | null = null;
    let w: Workload | null = null;
    let batches = 0;
    try {
      pgServer = await RestartablePostgres.start(dir);
      const admin = new pg.Client({ connectionString: pgServer.url() });
      await admin.connect();
      await admin.query('CREATE DATABASE pixgate');
      await admin.end();

      const { port } = await import('node:net').then((net) => new Promise<{ port: number }>((resolve) => {
        const s = net.createServer().listen(0, '127.0.0.1', () => {
          const a = s.address() as { port: number };
          s.close(() => resolve(a));
        });
      }));
      service = new ServiceProcess(port, {
        DATABASE_URL: pgServer.url('pixgate'), ADMIN_TOKEN, ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        SIM_PAYOUT_DELAY_MS: String(plan.simPayoutDelayMs), SIM_REFUND_DELAY_MS: String(plan.simRefundDelayMs),
        RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: 'silent', PIXGATE_DATA_DIR: join(dir, 'service'),
      });
      await service.start();
      pool = createPool(pgServer.url('pixgate'), 4);
      w = new Workload(httpClient(service, ADMIN_TOKEN, retryingExecutor(pool), stats));
      await w.setup(plan);

      // One fault at a time: a SIGKILL and restart of the service, or (once) a restart of PostgreSQL.
      let stop = false;
      const svc = service;
      const db = pgServer;
      const t0 = Date.now();
      const chaos = (async () => {
        for (let i = 0; !stop; i++) {
          await sleep(faults.gapsMs[i % faults.gapsMs.length]!);
          if (stop) return;
          if (db.restarts === 0 && Date.now() - t0 >= (WORKLOAD_MS * faults.pgRestartAtPercent) / 100) {
            await db.restart(faults.pgDownMs);
            continue;
          }
          await svc.kill();
          await sleep(faults.downMs[i % faults.downMs.length]!);
          await svc.start();
        }
      })();
      // The plan's batches, again from the start if it runs out: targets resolve against the model, so a
      // second pass is new work.
      try {
        while (Date.now() - t0 < WORKLOAD_MS) {
          await w.runBatch(plan.batches[batches % plan.batches.length]!, `batch ${batches}`);
          batches++;
        }
      } finally {
        stop = true;
        await chaos;
      }
      expect(pgServer.restarts, 'the run ended before PostgreSQL was restarted').toBe(1);

      // A last restart: the recovery sweeps run when a worker starts.
      await service.kill();
      await service.start();
      const settleStarted = Date.now();
      await w.settle(150_000);
      const settleMs = Date.now() - settleStarted;
      await verifyFinal(w);
      expect(service.crashes, 'the service exited on its own').toEqual([]);

      console.log([
        `chaos faults: seed ${seed}; ${service.kills} SIGKILLs survived (${service.kills - 1} mid-workload, 1 before the final checks), `
          + `PostgreSQL restarted ${pgServer.restarts}x`,
        `  ${plan.merchants.length} merchants, ${batches} batches, ${w.model.charges.length} charges, ${w.model.withdrawals.length} withdrawals`,
        `  ${stats.lostAnswers} answers lost, ${stats.retries} requests retried (the longest wait on a cut-off claim ${stats.longestClaimWaitMs} ms); `
          + `final settlement took ${settleMs} ms; total ${Date.now() - started} ms`,
        ...[...w.outcomes].sort().map(([k, n]) => `  ${k}: ${n}`),
      ].join('\n'));
      // Claims do not outlive their request (docs/contract/http.md#idempotency-claims): a retry cut off by a kill or a
      // database restart is answered within 10 s.
      expect(stats.longestClaimWaitMs, 'a retry waited on a cut-off claim').toBeLessThan(10_000);
    } catch (err) {
      const context = service ? ` (after ${service.kills} kills, ${pgServer?.restarts ?? 0} PostgreSQL restarts; crashes: ${service.crashes.join(' | ') || 'none'})` : '';
      throw failureReport(seed, 'npm run test:chaos -- test/chaos/faults.test.ts' + context, w, err);
    } finally {
      await service?.stop();
      await pool?.end();
      await pgServer?.close();
    }
  });
});
