// docs/contract/subscriptions.md#issuing, docs/contract/running.md#processes: hundreds of subscriptions taken through many
// cycles by real processes — one `api`, workers SIGKILLed and replaced while they issue cycles — with the simulator's
// next cycle racing the workers' issue jobs, random debits and cancellations. Afterwards every cycle was issued once
// (one claim, one charge), none was skipped or left half-issued, none was issued for an ended subscription, and every
// paid cycle was credited exactly once (the ledger's invariants hold).
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addDays, saoPauloDate } from '../../src/calendar/index.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { validTaxId } from '../charges/support.js';
import { ADMIN_TOKEN, freePort, freshDatabase, startPixgate, type Proc } from '../fleet/processes.js';
import { eventually } from '../support/eventually.js';

const SUBSCRIPTIONS = 200;
const CHURN_MS = 22_000;
const KILL_EVERY_MS = 2_500;
const CONCURRENCY = 8;
const WORKER_ENV = { SUBSCRIPTION_SWEEP_INTERVAL_MS: '1000', LOG_LEVEL: 'silent' };

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let base: string;
const procs: Proc[] = [];
const workers: Proc[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => {}); // the database is dropped with its connections at the end
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const started = await Promise.all([
    startPixgate('api', { DATABASE_URL: db.url, PORT: String(port), RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: 'silent' }, /listening on/),
    startWorker(), startWorker(),
  ]);
  procs.push(started[0]);
}, 120_000);
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await pool?.end();
  await db?.drop();
});

async function startWorker(): Promise<Proc> {
  const w = await startPixgate('worker', { DATABASE_URL: db.url, ...WORKER_ENV }, /worker running/);
  procs.push(w);
  workers.push(w);
  return w;
}

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() as any };
}
const admin = (method: string, path: string, body?: unknown) => call(method, path, ADMIN_TOKEN, body);
async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const r = await res;
  if (r.status !== status) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** Runs `fn` over `items` with CONCURRENCY at a time. */
async function each<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (next < items.length) await fn(items[next++]!); }));
}

const pick = <T>(xs: T[]): T => xs[randomInt(xs.length)]!;

it('hundreds of subscriptions through many cycles with workers killed: each cycle issued once, every paid cycle credited once', async () => {
  const merchant = await ok(admin('POST', '/admin/merchants', {
    userName: 'fleet', email: 'fleet@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja Fleet' }, pixKey: { type: 'EMAIL', key: 'fleet@example.com' },
  }), 201);
  const key = (await ok(admin('POST', `/admin/merchants/${merchant.id}/api-keys`), 201)).key as string;
  const today = saoPauloDate(new Date());
  const subs: Array<{ id: string; ended: boolean }> = [];
  await each(Array.from({ length: SUBSCRIPTIONS }, (_, i) => i), async (i) => {
    const customer = await ok(call('POST', '/customers', key, { email: `payer${i}@example.com`, name: `Pagador ${i}`, taxId: validTaxId() }), 201);
    const weekly = i % 2 === 0;
    const start = addDays(today, 2 + (i % 4));
    const s = await ok(call('POST', '/subscriptions', key, {
      customerId: customer.id, amount: 1_000 + i, frequency: weekly ? 'WEEKLY' : 'MONTHLY', startDate: start, contract: `C${i}`, journey: 'QR',
      retryPolicy: i % 3 === 0 ? 'THREE_IN_7_DAYS' : 'NONE', ...(i % 4 === 1 ? { endDate: addDays(start, weekly ? 28 : 120) } : {}),
    }), 201);
    await ok(admin('POST', `/admin/simulator/subscriptions/${s.id}/authorize`));
    subs.push({ id: s.id, ended: false });
  });

  // Kill a worker every few seconds (SIGKILL: no draining) and start another in its place.
  let churning = true;
  const killer = (async () => {
    while (churning) {
      await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
      if (!churning) break;
      const victim = workers.splice(randomInt(workers.length), 1)[0]!;
      victim.child.kill('SIGKILL');
      await startWorker();
    }
  })();

  const issuedNow: Array<{ subscriptionId: string; chargeId: string }> = [];
  let debits = 0;
  // The churn lasts CHURN_MS and, on a machine slowed by other work, until the simulator issued a cycle per
  // subscription (so the count checked below is reached by work done, not by the machine's speed), within a cap.
  const deadline = Date.now() + CHURN_MS;
  const churnOn = () => Date.now() < deadline || (issuedNow.length <= SUBSCRIPTIONS && Date.now() < deadline + 2 * CHURN_MS);
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (churnOn()) {
      const open = subs.filter((s) => !s.ended);
      const s = pick(open);
      // At most half the subscriptions are cancelled, so cycles keep being issued and paid to the end of the churn
      // (a fast run once cancelled all 200 and had nothing left to pick).
      const r = open.length > SUBSCRIPTIONS / 2 ? Math.random() : Math.random() * 0.93;
      if (r < 0.4) {
        const res = await admin('POST', `/admin/simulator/subscriptions/${s.id}/next-cycle`);
        if (res.status === 200) issuedNow.push({ subscriptionId: s.id, chargeId: res.body.data.id });
        else expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([400, 'INVALID_STATE']);
      } else if (r < 0.93) {
        const charges = (await ok(call('GET', `/subscriptions/${s.id}/charges?limit=100`, key))) as Array<{ id: string; status: string }>;
        const pending = charges.filter((c) => c.status === 'PENDING');
        if (!pending.length) continue;
        const res = await admin('POST', `/admin/simulator/charges/${pick(pending).id}/debit`, { outcome: Math.random() < 0.7 ? 'PAID' : 'INSUFFICIENT_FUNDS' });
        if (res.status === 200) debits++;
        else expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([400, 'INVALID_STATE']);
      } else {
        s.ended = true;
        const res = r < 0.965 ? await call('POST', `/subscriptions/${s.id}/cancel`, key) : await admin('POST', `/admin/simulator/subscriptions/${s.id}/cancel`);
        expect([200, 400]).toContain(res.status);
      }
    }
  }));
  churning = false;
  await killer;
  if (!workers.some((w) => w.child.exitCode === null)) await startWorker();

  // The dead workers' claims are completed by the sweep (within two of its periods), and their jobs run again.
  await eventually(async () => {
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM subscription_cycles WHERE charge_id IS NULL AND NOT abandoned`);
    return rows[0].n === 0;
  }, 30_000, 250);

  // Each cycle claimed once (the primary key), every claim of a live subscription written as exactly one charge,
  // no cycle skipped (cycles 0..n of each subscription, all issuable when claimed), none issued after the end.
  const { rows: cycles } = await pool.query<{ subscription_id: string; cycle: number; charge_id: string | null; abandoned: boolean; status: string }>(
    `SELECT sc.subscription_id, sc.cycle, sc.charge_id, sc.abandoned, s.status FROM subscription_cycles sc JOIN subscriptions s ON s.id = sc.subscription_id ORDER BY 1, 2`);
  const bySub = new Map<string, number[]>();
  for (const c of cycles) bySub.set(c.subscription_id, [...(bySub.get(c.subscription_id) ?? []), c.cycle]);
  for (const [id, ns] of bySub) expect(ns, id).toEqual(ns.map((_, i) => i));
  expect(cycles.filter((c) => c.abandoned && c.status === 'ACTIVE')).toEqual([]);
  // A cancelled subscription has no live charge: each was paid before, or cancelled with it (a claim it ended
  // before its charge was written stays abandoned, checked above).
  const { rows: [counts] } = await pool.query(`
    SELECT (SELECT count(*)::int FROM charges WHERE subscription_id IS NOT NULL) AS charges,
           (SELECT count(*)::int FROM subscription_cycles WHERE charge_id IS NOT NULL) AS issued,
           (SELECT count(*)::int FROM charges c JOIN subscriptions s ON s.id = c.subscription_id
              WHERE s.status = 'CANCELLED' AND charge_status(c.status, c.expires_at) = 'PENDING') AS live_after_cancel`);
  expect(counts).toEqual({ charges: counts.issued, issued: cycles.filter((c) => c.charge_id).length, live_after_cancel: 0 });
  expect(counts.issued).toBeGreaterThan(SUBSCRIPTIONS * 2);
  // The simulator's next cycles: each answer a distinct charge of its own subscription.
  expect(new Set(issuedNow.map((x) => x.chargeId)).size).toBe(issuedNow.length);
  const owners = new Map(cycles.filter((c) => c.charge_id).map((c) => [c.charge_id!, c.subscription_id]));
  for (const x of issuedNow) expect(owners.get(x.chargeId)).toBe(x.subscriptionId);

  // Every paid cycle credited once; nothing credited for a charge not paid.
  const { rows: credits } = await pool.query<{ id: string; paid: boolean; postings: number }>(`
    SELECT c.id, c.paid_at IS NOT NULL AS paid, (SELECT count(*)::int FROM ledger_transactions t WHERE t.kind = 'CHARGE_PAYMENT' AND t.reference = c.id) AS postings
    FROM charges c WHERE c.subscription_id IS NOT NULL`);
  expect(credits.filter((c) => c.postings !== (c.paid ? 1 : 0))).toEqual([]);
  expect(credits.filter((c) => c.paid).length).toBeGreaterThan(50);
  expect(await verifyLedger(pool)).toEqual([]);
  expect(debits).toBeGreaterThan(100);
}, 180_000);
