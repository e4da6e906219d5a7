// docs/contract/subscriptions.md#cycle-charges, #debits, #issuing: each cycle's charge issued once (by Pixgate for a fixed
// amount, by the merchant for a variable one), debited by the payer's bank through the one payment path, retried under
// THREE_IN_7_DAYS, failed with a reason otherwise; the subscription completed by its last cycle. Over HTTP against
// PostgreSQL, the simulator playing the payer's bank; the worker running the issue jobs and the sweep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, saoPauloDayEnd, saoPauloDayStart } from '../../src/calendar/index.js';
import { cycleDueDate, cycleIssueDate } from '../../src/subscriptions/cycle.rules.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, events, expectError, type Merchant } from '../charges/support.js';
import {
  authorize, chargesOnceThere, cycleCharges, debit, getSub, inDays, nextCycle, payer, subscribe, today, waitForStatus,
} from './support.js';

let t: TestContext;
let m: Merchant;
let customerId: string;

beforeAll(async () => {
  t = await createTestContext({ LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' });
  m = await t.merchant({ chargeFeeFixed: 10, chargeFeeBps: 100 });
  customerId = await payer(t, m);
});
afterAll(async () => { await t?.close(); });

/** A subscription authorized; its issue job issues every cycle due within 10 days. */
async function active(over: Record<string, unknown> = {}) {
  const s = await subscribe(t, m, customerId, { startDate: inDays(2), frequency: 'WEEKLY', ...over });
  await authorize(t, s.id);
  return s;
}

/** Makes a job of the worker due now (the sweep, an expiry, a scheduled debit). */
const runNow = (key: string) => t.pool.query('UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = $1', [key]);
const jobRunAt = async (key: string) =>
  (await t.pool.query<{ run_at: Date }>('SELECT run_at FROM graphile_worker._private_jobs WHERE key = $1', [key])).rows[0]?.run_at;

describe('fixed amount: Pixgate issues each cycle 10 days before it is due', () => {
  it('authorized, the cycles due within 10 days are issued at once: ordinary charges with subscriptionId and dueDate, nothing to scan', async () => {
    const s = await active({ retryPolicy: 'THREE_IN_7_DAYS' });
    const charges = await chargesOnceThere(t, m, s.id, 2);
    const dues = [0, 1].map((n) => cycleDueDate(inDays(2), 'WEEKLY', n));
    expect(charges.map((c) => c.dueDate)).toEqual([dues[1], dues[0]]); // newest first
    for (const c of charges) {
      expect(c).toMatchObject({
        status: 'PENDING', amount: 2_990, subscriptionId: s.id, description: 'Streaming', brCode: '', attempts: [], failedReason: null, split: [],
      });
      // Debitable until the end of the retry window (the due date + 7 days, São Paulo).
      expect(c.expiresAt).toBe(saoPauloDayEnd(addDays(c.dueDate, 7)).toISOString());
    }
    const check = await t.request('GET', `/transparents/check?id=${charges[0]!.id}`, { key: m.key });
    expect([check.body.data.imageBase64, check.body.data.dueDate]).toEqual(['', dues[1]]);
    const created = (await events(t, m.id, 'CHARGE_CREATED')).filter((e) => e.data.subscriptionId === s.id);
    expect(created.map((e) => e.data.dueDate).sort()).toEqual(dues);
    // The plan moves on: cycle 2 is issued 10 days before it is due.
    const { rows: [plan] } = await t.pool.query(`SELECT next_cycle, to_char(next_issue_on, 'YYYY-MM-DD') AS on FROM subscriptions WHERE id = $1`, [s.id]);
    expect(plan).toEqual({ next_cycle: 2, on: addDays(cycleDueDate(inDays(2), 'WEEKLY', 2), -10) });
    // nextDueDate is the next cycle due, issued or not: cycle 0's, until its day has passed.
    expect((await getSub(t, m, s.id)).nextDueDate).toBe(dues[0]);
  });

  it('the sweep issues a cycle on its issue day; a cycle whose last issue day passed is not issued', async () => {
    const s = await active({ frequency: 'MONTHLY' });
    await chargesOnceThere(t, m, s.id, 1);
    // Move the plan so that cycle 1's issue day is today, and let the sweep run.
    await t.pool.query(`UPDATE subscriptions SET next_issue_on = $2 WHERE id = $1`, [s.id, today()]);
    await t.pool.query(`UPDATE subscriptions SET start_date = $2 WHERE id = $1`, [s.id, addDays(today(), -20)]);
    await runNow('subscriptions.sweep');
    // Started 20 days ago: cycle 1 is due in ~10 days; cycle 0 (claimed already) stays as it was.
    await chargesOnceThere(t, m, s.id, 2);
    const late = await subscribe(t, m, customerId, { startDate: inDays(2), frequency: 'WEEKLY' });
    await t.pool.query(`UPDATE subscriptions SET start_date = $2 WHERE id = $1`, [late.id, addDays(today(), 1)]);
    await authorize(t, late.id);
    const skipped = cycleIssueDate(cycleDueDate(addDays(today(), 1), 'WEEKLY', 0), today()) === null;
    const charges = await chargesOnceThere(t, m, late.id, skipped ? 1 : 2);
    expect(charges.at(-1)!.dueDate).toBe(cycleDueDate(addDays(today(), 1), 'WEEKLY', skipped ? 1 : 0));
  });

  it('the simulator\'s next cycle issues the next one now; concurrent calls issue distinct cycles, each once', async () => {
    const s = await active({ frequency: 'MONTHLY' });
    await chargesOnceThere(t, m, s.id, 1);
    const issued = await Promise.all(Array.from({ length: 8 }, () => nextCycle(t, s.id)));
    const dues = issued.map((c) => c.dueDate).sort();
    expect(new Set(dues).size).toBe(8);
    expect(dues).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => cycleDueDate(inDays(2), 'MONTHLY', n)));
    const { rows } = await t.pool.query('SELECT cycle, count(*)::int AS n FROM subscription_cycles WHERE subscription_id = $1 GROUP BY cycle ORDER BY cycle', [s.id]);
    expect(rows.map((r) => [r.cycle, r.n])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 1]));
    expect((await cycleCharges(t, m, s.id)).length).toBe(9);
  });
});

describe('debits by the payer\'s bank', () => {
  it('PAID on the due date: the charge is paid and credited as every charge; the attempt is listed', async () => {
    const s = await active();
    const [charge] = (await chargesOnceThere(t, m, s.id, 2)).slice(-1);
    const before = await balance(t, m);
    const paid = await debit(t, charge!.id);
    expect(paid).toMatchObject({ status: 'PAID', fee: 10 + 29, netAmount: 2_990 - 39 });
    expect(paid.attempts).toEqual([{ date: today(), outcome: 'PAID', end2endId: paid.end2endId }]);
    expect((await balance(t, m)).available - before.available).toBe(2_990 - 39);
    expect((await events(t, m.id, 'CHARGE_PAID')).filter((e) => e.data.id === charge!.id)).toHaveLength(1);
    expectError(await t.admin('POST', `/admin/simulator/charges/${charge!.id}/debit`, { outcome: 'PAID' }), 400, 'INVALID_STATE');
    // The simulator's pay of a cycle's charge pays it as the debit would: its payment is the PAID attempt.
    const [other] = await cycleCharges(t, m, s.id);
    const byPay = (await t.admin('POST', `/admin/simulator/charges/${other!.id}/pay`)).body.data;
    expect(byPay.attempts).toEqual([{ date: today(), outcome: 'PAID', end2endId: byPay.end2endId }]);
    await t.assertLedger();
  });

  it('the payer\'s bank debits on the due date by itself (its scheduled debit)', async () => {
    const s = await active();
    const [charge] = (await chargesOnceThere(t, m, s.id, 2)).slice(-1);
    const key = `sim:subscriptions:debit:${charge!.txid}`;
    expect((await jobRunAt(key))?.toISOString()).toBe(saoPauloDayStart(charge!.dueDate).toISOString());
    await runNow(key);
    await eventually(async () => (await cycleCharges(t, m, s.id)).find((c) => c.id === charge!.id)!.status === 'PAID', 10_000);
    await t.assertLedger();
  });

  it('the payer\'s bank never debits a cycle charge that ended: failed (NONE) or cancelled with its subscription, its scheduled debit does nothing', async () => {
    const s = await active();
    const [first, second] = (await chargesOnceThere(t, m, s.id, 2)).reverse();
    await debit(t, first!.id, 'INSUFFICIENT_FUNDS');
    expect((await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key })).status).toBe(200);
    const before = await balance(t, m);
    for (const c of [first!, second!]) {
      const key = `sim:subscriptions:debit:${c.txid}`;
      await runNow(key);
      await eventually(async () => (await jobRunAt(key)) === undefined, 10_000);
    }
    const after = await cycleCharges(t, m, s.id);
    expect(after.map((c) => [c.id, c.status, c.failedReason])).toEqual([
      [second!.id, 'EXPIRED', 'SUBSCRIPTION_CANCELLED'], [first!.id, 'EXPIRED', 'INSUFFICIENT_FUNDS'],
    ]);
    expect((await balance(t, m)).available).toBe(before.available);
    expect((await events(t, m.id, 'CHARGE_PAID')).filter((e) => e.data.subscriptionId === s.id)).toEqual([]);
    await t.assertLedger();
  });

  it('NONE: one failed attempt ends the charge, EXPIRED with the outcome as failedReason; the subscription stays ACTIVE', async () => {
    const s = await active();
    const [charge] = (await chargesOnceThere(t, m, s.id, 2)).slice(-1);
    const failed = await debit(t, charge!.id, 'INSUFFICIENT_FUNDS');
    expect(failed).toMatchObject({ status: 'EXPIRED', failedReason: 'INSUFFICIENT_FUNDS' });
    expect(failed.attempts).toEqual([{ date: today(), outcome: 'INSUFFICIENT_FUNDS', end2endId: expect.stringMatching(/^E99999999/) }]);
    const [fail] = (await events(t, m.id, 'SUBSCRIPTION_CHARGE_FAILED')).filter((e) => e.data.id === charge!.id);
    expect(fail!.data).toMatchObject({ id: charge!.id, attempts: failed.attempts, status: 'PENDING' });
    expect((await events(t, m.id, 'CHARGE_EXPIRED')).filter((e) => e.data.id === charge!.id)).toHaveLength(1);
    expect((await getSub(t, m, s.id)).status).toBe('ACTIVE');
    expectError(await t.admin('POST', `/admin/simulator/charges/${charge!.id}/debit`, { outcome: 'PAID' }), 400, 'INVALID_STATE');
  });

  it('a failure that ends the charge records SUBSCRIPTION_CHARGE_FAILED, then CHARGE_EXPIRED, in that order', async () => {
    const s = await active({ frequency: 'MONTHLY' });
    await chargesOnceThere(t, m, s.id, 1);
    for (let k = 0; k < 6; k++) {
      const charge = await nextCycle(t, s.id);
      await debit(t, charge.id, 'INSUFFICIENT_FUNDS');
      const mine = (await events(t, m.id)).filter((e) => e.data.id === charge.id && e.type !== 'CHARGE_CREATED');
      expect(mine.map((e) => e.type)).toEqual(['SUBSCRIPTION_CHARGE_FAILED', 'CHARGE_EXPIRED']);
    }
  });

  it('THREE_IN_7_DAYS: each failure asks the payer\'s bank for a retry the next day, three times; the fourth failure ends it', async () => {
    const s = await active({ retryPolicy: 'THREE_IN_7_DAYS' });
    const [charge] = (await chargesOnceThere(t, m, s.id, 2)).slice(-1);
    const due = charge!.dueDate as string;
    for (let k = 1; k <= 3; k++) {
      const after = await debit(t, charge!.id, 'INSUFFICIENT_FUNDS');
      expect([after.status, after.attempts.length, after.failedReason]).toEqual(['PENDING', k, null]);
      // The payer's bank is asked (after the commit) for an attempt the day after the due date.
      await eventually(async () => (await jobRunAt(`sim:subscriptions:debit:${charge!.txid}`))?.getTime() === saoPauloDayStart(addDays(due, 1)).getTime(), 10_000);
    }
    const last = await debit(t, charge!.id, 'INSUFFICIENT_FUNDS');
    expect([last.status, last.attempts.length, last.failedReason]).toEqual(['EXPIRED', 4, 'INSUFFICIENT_FUNDS']);
    expect((await events(t, m.id, 'SUBSCRIPTION_CHARGE_FAILED')).filter((e) => e.data.id === charge!.id)).toHaveLength(4);
  });

  it('THREE_IN_7_DAYS: a retry that succeeds pays the charge, the failures before it listed', async () => {
    const s = await active({ retryPolicy: 'THREE_IN_7_DAYS' });
    const [charge] = (await chargesOnceThere(t, m, s.id, 2)).slice(-1);
    await debit(t, charge!.id, 'INSUFFICIENT_FUNDS');
    const paid = await debit(t, charge!.id, 'PAID');
    expect(paid.status).toBe('PAID');
    expect(paid.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['INSUFFICIENT_FUNDS', 'PAID']);
    await t.assertLedger();
  });

  it('a charge that is not a cycle\'s is not debited; an unknown one is 404', async () => {
    const plain = (await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 } })).body.data;
    expectError(await t.admin('POST', `/admin/simulator/charges/${plain.id}/debit`, { outcome: 'PAID' }), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/charges/chg_0000000000000000000000/debit', { outcome: 'PAID' }), 404, 'NOT_FOUND');
    expectError(await t.admin('POST', `/admin/simulator/charges/${plain.id}/debit`, { outcome: 'MAYBE' }), 400, 'VALIDATION_ERROR');
  });
});

describe('completion', () => {
  it('COMPLETED once the last cycle (due on or before endDate) is PAID; no cycle after it', async () => {
    const s = await active({ endDate: inDays(2) });
    const [only] = await chargesOnceThere(t, m, s.id, 1);
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/next-cycle`), 400, 'INVALID_STATE', 'Subscription has no cycle left');
    await debit(t, only!.id);
    const done = await waitForStatus(t, m, s.id, 'COMPLETED');
    expect(done).toMatchObject({ endedBy: null, nextDueDate: null });
    expect(done.endedAt).not.toBeNull();
  });

  it('COMPLETED once the last cycle EXPIRED too', async () => {
    const s = await active({ endDate: inDays(9) });
    const charges = await chargesOnceThere(t, m, s.id, 2);
    await debit(t, charges[1]!.id, 'INSUFFICIENT_FUNDS');
    await new Promise((r) => setTimeout(r, 300));
    expect((await getSub(t, m, s.id)).status).toBe('ACTIVE'); // an earlier cycle
    await debit(t, charges[0]!.id, 'INSUFFICIENT_FUNDS');
    await waitForStatus(t, m, s.id, 'COMPLETED');
  });
});

describe('exactly once across crashes', () => {
  it('a claim left without its charge (its process died) is completed by the sweep with its txid; a cycle never skipped', async () => {
    const s = await active({ frequency: 'MONTHLY' });
    await chargesOnceThere(t, m, s.id, 1);
    const due = cycleDueDate(inDays(2), 'MONTHLY', 1);
    // What a process leaves when it dies after the claim committed and before the charge was written.
    await t.pool.query(
      `INSERT INTO subscription_cycles (subscription_id, merchant_id, cycle, due_date, amount, txid, claimed_at)
       VALUES ($1, $2, 1, $3, 2990, 'abandonedbyacrashedprocess0001', now() - interval '1 minute')`, [s.id, m.id, due]);
    await t.pool.query('UPDATE subscriptions SET next_cycle = 2 WHERE id = $1', [s.id]);
    await runNow('subscriptions.sweep');
    const charges = await chargesOnceThere(t, m, s.id, 2);
    expect(charges[0]).toMatchObject({ dueDate: due, txid: 'abandonedbyacrashedprocess0001', status: 'PENDING' });
  });

  it('a subscription cancelled between a claim and its charge gets no charge for it: the claim is abandoned', async () => {
    const s = await active({ frequency: 'MONTHLY' });
    await chargesOnceThere(t, m, s.id, 1);
    await t.pool.query(
      `INSERT INTO subscription_cycles (subscription_id, merchant_id, cycle, due_date, amount, txid, claimed_at)
       VALUES ($1, $2, 1, $3, 2990, 'claimedbeforethecancel00000001', now() - interval '1 minute')`, [s.id, m.id, cycleDueDate(inDays(2), 'MONTHLY', 1)]);
    await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key });
    await runNow('subscriptions.sweep');
    await eventually(async () => (await t.pool.query('SELECT abandoned FROM subscription_cycles WHERE subscription_id = $1 AND cycle = 1', [s.id])).rows[0].abandoned, 10_000);
    expect((await cycleCharges(t, m, s.id)).length).toBe(1);
  });
});

describe('variable amount: the merchant issues each cycle\'s charge', () => {
  const body = { amount: undefined, minAmount: 1_000 };
  const ask = (id: string, b: unknown, headers?: Record<string, string>) => t.request('POST', `/subscriptions/${id}/charges`, { key: m.key, body: b, headers });

  it('POST /subscriptions/{id}/charges {amount ≥ minAmount, dueDate of a cycle}: 201 the charge; one per cycle', async () => {
    const s = await subscribe(t, m, customerId, { ...body, startDate: inDays(2), frequency: 'WEEKLY' });
    const due0 = cycleDueDate(inDays(2), 'WEEKLY', 0);
    expectError(await ask(s.id, { amount: 1_500, dueDate: due0 }), 400, 'INVALID_STATE', 'Subscription is CREATED; only an ACTIVE subscription is charged');
    await authorize(t, s.id);
    await new Promise((r) => setTimeout(r, 200));
    expect(await cycleCharges(t, m, s.id)).toEqual([]); // never issued by Pixgate
    expectError(await ask(s.id, { amount: 999, dueDate: due0 }), 400, 'VALIDATION_ERROR', 'amount: must be >= minAmount (1000)');
    expectError(await ask(s.id, { amount: 1_500, dueDate: addDays(due0, 1) }), 400, 'VALIDATION_ERROR', 'dueDate: is not the due date of a cycle of the subscription');
    const res = await ask(s.id, { amount: 1_500, dueDate: due0 }, { 'idempotency-key': 'var-1' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ amount: 1_500, dueDate: due0, subscriptionId: s.id, status: 'PENDING', imageBase64: '' });
    const replay = await ask(s.id, { amount: 1_500, dueDate: due0 }, { 'idempotency-key': 'var-1' });
    expect([replay.status, replay.body.data.id]).toEqual([201, res.body.data.id]);
    expectError(await ask(s.id, { amount: 1_500, dueDate: due0 }), 409, 'CONFLICT', `Subscription already has a charge due ${due0}`);
    const later = await ask(s.id, { amount: 2_000, dueDate: cycleDueDate(inDays(2), 'WEEKLY', 3) });
    expect(later.status).toBe(201);
    expect((await cycleCharges(t, m, s.id)).map((c) => c.amount)).toEqual([2_000, 1_500]);
    expect(await debit(t, res.body.data.id)).toMatchObject({ status: 'PAID', amount: 1_500 });
  });

  it('an amount that does not cover the merchant\'s fee (raised since) is refused before the cycle is claimed: the cycle stays free', async () => {
    const mf = await t.merchant();
    const c = await payer(t, mf);
    const s = await subscribe(t, mf, c, { ...body, startDate: inDays(2), frequency: 'WEEKLY' });
    await authorize(t, s.id);
    expect((await t.admin('PATCH', `/admin/merchants/${mf.id}`, { chargeFeeFixed: 2_000 })).status).toBe(200);
    const due = cycleDueDate(inDays(2), 'WEEKLY', 1);
    const res = await t.request('POST', `/subscriptions/${s.id}/charges`, { key: mf.key, body: { amount: 1_500, dueDate: due } });
    expectError(res, 400, 'VALIDATION_ERROR', 'amount: must cover the fee (2000)');
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM subscription_cycles WHERE subscription_id = $1', [s.id]);
    expect(rows[0].n).toBe(0);
    const fixed = await t.request('POST', `/subscriptions/${s.id}/charges`, { key: mf.key, body: { amount: 2_500, dueDate: due } });
    expect([fixed.status, fixed.body.data?.amount]).toEqual([201, 2_500]);
  });

  it('a due date less than 2 days away is too late; a fixed-amount subscription is Pixgate\'s to issue', async () => {
    const s = await subscribe(t, m, customerId, { ...body, startDate: inDays(2), frequency: 'WEEKLY' });
    await authorize(t, s.id);
    await t.pool.query('UPDATE subscriptions SET start_date = $2 WHERE id = $1', [s.id, addDays(today(), -7)]);
    expectError(await ask(s.id, { amount: 1_500, dueDate: cycleDueDate(addDays(today(), -7), 'WEEKLY', 1) }), 400, 'VALIDATION_ERROR', 'dueDate: must be at least 2 days after today');
    const fixed = await active();
    expectError(await ask(fixed.id, { amount: 1_500, dueDate: inDays(2) }), 400, 'INVALID_STATE', 'Subscription has a fixed amount: Pixgate issues its cycles');
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/next-cycle`), 400, 'INVALID_STATE');
  });
});
