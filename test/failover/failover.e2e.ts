import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/platform/db.js';
import { ServiceProcess } from '../chaos/faults/service.js';
import { checkInvariants } from '../chaos/workload/invariants.js';
import { AutoFailoverCluster, autoFailoverBinDir } from './cluster.js';
import { percentile, timeline, unavailability, WriteWorkload } from './writes.js';

/**
 * `npm run test:failover`: pg_auto_failover (a monitor, a primary and its synchronous standby) on this
 * machine, the service on the URI `pg_autoctl show uri` prints, a constant write workload, and
 * `pg_autoctl perform failover` mid-run. Every write answered 2xx must be in the database afterwards,
 * the balance must be what the answers imply, the ledger must hold, and the service must have found the
 * new primary by itself (it is never restarted). Prints the unavailability window and p99 latencies.
 */
const BEFORE_MS = Number(process.env.FAILOVER_BEFORE_SECONDS ?? 12) * 1000;
const AFTER_MS = Number(process.env.FAILOVER_AFTER_SECONDS ?? 12) * 1000;
const LANES = 6;
const ADMIN_TOKEN = 'failover-admin-token-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bin = autoFailoverBinDir();

describe.skipIf(!bin)('PostgreSQL failover under a write workload', () => {
  it('loses no write answered 2xx, keeps the balances, and the service follows the new primary by itself', async () => {
    let cluster: AutoFailoverCluster | null = null;
    let service: ServiceProcess | null = null;
    let pool: pg.Pool | null = null;
    const dataDir = mkdtempSync(join(tmpdir(), 'pixgate-failover-svc-'));
    try {
      cluster = await AutoFailoverCluster.start(bin!);
      const uri = await cluster.uri();
      expect(uri, 'pg_autoctl prints a multi-host URI without a user').toMatch(/^postgres:\/\/localhost:\d+,localhost:\d+\/pixgate\?.*target_session_attrs=read-write/);
      const firstPrimary = await cluster.primaryPort();

      // The printed URI names no user: the service connects as the OS user running it (libpq's default),
      // so that role must exist and own the database, as an operator would set it up.
      const me = process.env.PGUSER || userInfo().username;
      if (me !== 'postgres') {
        const su = new pg.Client({ host: 'localhost', port: firstPrimary, user: 'postgres', database: 'pixgate', ssl: { rejectUnauthorized: false } });
        await su.connect();
        await su.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${me}') THEN CREATE ROLE "${me}" LOGIN; END IF; END $$`);
        await su.query(`ALTER DATABASE pixgate OWNER TO "${me}"`);
        await su.end();
      }

      const { port } = await import('node:net').then((net) => new Promise<{ port: number }>((resolve) => {
        const s = net.createServer().listen(0, '127.0.0.1', () => {
          const a = s.address() as { port: number };
          s.close(() => resolve(a));
        });
      }));
      service = new ServiceProcess(port, {
        DATABASE_URL: uri, ADMIN_TOKEN, ENCRYPTION_KEY: randomBytes(32).toString('hex'), RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: process.env.FAILOVER_LOG_LEVEL ?? 'silent',
        SIM_PAYOUT_DELAY_MS: '200', PIXGATE_DATA_DIR: dataDir,
      });
      await service.start();

      const admin = async (method: string, url: string, body?: unknown) => {
        const res = await fetch(`${service!.baseUrl}${url}`, {
          method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() as any };
      };
      const merchant = await admin('POST', '/admin/merchants', {
        userName: 'failover', email: 'failover@example.com', kyc: { status: 'APPROVED', tradeName: 'Failover' },
        pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() }, chargeFeeFixed: 0, chargeFeeBps: 0, withdrawalFeeFixed: 0,
      });
      expect(merchant.status).toBe(201);
      const key = await admin('POST', `/admin/merchants/${merchant.body.data.id}/api-keys`);
      expect(key.status).toBe(201);

      const w = new WriteWorkload(service.baseUrl, key.body.data.key, ADMIN_TOKEN);
      const load = w.run(LANES);
      await sleep(BEFORE_MS);
      const standbyPort = cluster.ports.nodes.find((p) => p !== firstPrimary)!;
      const failoverStart = w.mark('failover began');
      const promoted = cluster.writableAt(standbyPort, 120_000).then((at) => w.mark('standby took writes', at - w.t0));
      await cluster.failover();
      const failoverEnd = w.mark('pg_autoctl perform failover returned');
      const newPrimary = await cluster.primaryPort();
      await sleep(AFTER_MS);
      await load.stop();
      expect(newPrimary, 'the primary changed').not.toBe(firstPrimary);

      // The service recovered by itself: never restarted, no crash, and writes answered after the failover.
      expect(service.starts).toBe(1);
      expect(service.crashes).toEqual([]);
      const after = w.attempts.filter((a) => a.ok && a.what.startsWith('POST') && a.start > failoverEnd).length;
      expect(after, 'writes answered after the failover').toBeGreaterThan(20);

      const finals = await w.settleWithdrawals(60_000);
      pool = createPool(uri, 2);
      const charges = await pool.query<{ id: string; amount: number; status: string }>(
        'SELECT id, amount, status FROM charges WHERE merchant_id = $1', [merchant.body.data.id]);
      const inDb = new Map(charges.rows.map((r) => [r.id, r]));
      const missing = [...w.charges].filter(([id, c]) => inDb.get(id)?.amount !== c.amount).map(([id]) => id);
      expect(missing, 'charges answered 201 and missing afterwards').toEqual([]);
      expect(charges.rows.length, 'one charge per create (retries replayed, not repeated)').toBe(w.charges.size);
      const unpaid = [...w.charges].filter(([id, c]) => c.paid && inDb.get(id)?.status !== 'PAID').map(([id]) => id);
      expect(unpaid, 'payments answered 200 (or read back PAID) and not PAID afterwards').toEqual([]);
      const wds = await pool.query<{ id: string }>('SELECT id FROM withdrawals WHERE merchant_id = $1', [merchant.body.data.id]);
      expect(new Set(wds.rows.map((r) => r.id))).toEqual(new Set(w.withdrawals.keys()));
      expect([...finals.values()].every((s) => s === 'COMPLETED'), 'every withdrawal completed').toBe(true);

      const balance = await w.getBalance();
      expect(balance.body.data).toMatchObject({ available: w.available(), pending: 0, blocked: 0 });
      expect(await checkInvariants(pool), 'ledger and database invariants').toEqual([]);

      const u = unavailability(w.attempts, failoverStart - 2000, failoverEnd + 10_000);
      const latencies = (xs: typeof w.attempts, from: number, to: number) => xs.filter((a) => a.ok && a.end >= from && a.start < to).map((a) => a.end - a.start);
      const steady = latencies(w.attempts, 0, failoverStart);
      const around = latencies(w.attempts, failoverStart - 5000, failoverEnd + 5000);
      const aroundCalls = latencies(w.calls, failoverStart - 5000, failoverEnd + 5000);
      const conflicts = w.attempts.filter((a) => a.outcome.startsWith('409'));
      const fmt = (xs: number[]): string => `p50 ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} requests)`;
      console.log([
        `failover: pg_autoctl perform failover took ${((failoverEnd - failoverStart) / 1000).toFixed(1)} s; primary moved from :${firstPrimary} to :${newPrimary}`,
        `  the standby accepted writes ${((await promoted - failoverStart) / 1000).toFixed(2)} s after the failover began; the service answered writes again `
          + `${((u.recovered - (await promoted)) / 1000).toFixed(2)} s after that`,
        `  unavailability window: ${(u.windowMs / 1000).toFixed(2)} s (first failed attempt ${((u.firstFail - failoverStart) / 1000).toFixed(2)} s after the failover began, `
          + `writes answered again ${((u.recovered - failoverStart) / 1000).toFixed(2)} s after), ${u.failed} attempts failed and were retried`,
        `  latency before the failover: ${fmt(steady)}`,
        `  latency within 5 s of the failover: ${fmt(around)}; with the client's retries: ${fmt(aroundCalls)}`,
        `  ${conflicts.length} retries answered 409 IDEMPOTENCY_CONFLICT (a key claimed by an attempt the failover cut, until its request frees it)`
          + (conflicts.length ? `, the last ${((Math.max(...conflicts.map((a) => a.end)) - failoverStart) / 1000).toFixed(1)} s after the failover began` : ''),
        `  ${w.charges.size} charges (${[...w.charges.values()].filter((c) => c.paidAnswered).length} payments answered 200), ${w.withdrawals.size} withdrawals; `
          + `${w.attempts.length} attempts in ${(w.now() / 1000).toFixed(0)} s`,
        ...(process.env.FAILOVER_TIMELINE ? ['  per second (from the failover start = 0):', ...timeline(w.attempts.map((a) => ({ ...a, end: a.end - failoverStart })), -3000, u.recovered - failoverStart + 3000)] : []),
      ].join('\n'));
      // Claims do not outlive their request (docs/contract/http.md#idempotency-claims): a create the failover cut
      // off after it claimed its key is answered within 10 s of the database taking writes again.
      const back = await promoted;
      const late = w.calls.filter((c) => c.what === 'POST /transparents/create' && c.end - Math.max(c.start, back) >= 10_000);
      expect(late.map((c) => `${((c.end - back) / 1000).toFixed(1)} s after the standby took writes`), 'creates answered 10 s or more after the database came back').toEqual([]);
    } finally {
      await service?.stop();
      await pool?.end();
      await cluster?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
