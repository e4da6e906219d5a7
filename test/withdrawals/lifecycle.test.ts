import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balanceOf, createWithdrawal, FULL_FIELDS, fundedMerchant, ledgerKinds, simPayoutCount } from './helpers.js';

// Payouts settle on their own after 50 ms, through the worker, as in production (SIM_PAYOUT_DELAY_MS).
let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '50' }); });
afterAll(async () => { await t?.close(); });

async function settled(key: string, id: string) {
  return eventually(async () => {
    const res = await t.request('GET', `/withdrawals/${id}`, { key });
    return ['COMPLETED', 'FAILED'].includes(res.body.data.status) && res.body.data;
  });
}

async function eventsOf(merchantId: string) {
  const { rows } = await t.pool.query(`SELECT type, body::jsonb -> 'data' AS data, callback_url FROM events WHERE merchant_id = $1 ORDER BY created_at, id`, [merchantId]);
  return rows as Array<{ type: string; data: any; callback_url: string | null }>;
}

async function postingsOf(withdrawalId: string) {
  const { rows } = await t.pool.query(
    `SELECT t.kind, e.account_id AS account, e.amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
     WHERE t.reference = $1 ORDER BY t.id, e.account_id`, [withdrawalId]);
  return rows as Array<{ kind: string; account: string; amount: number }>;
}

describe('withdrawal lifecycle', () => {
  it('PENDING → PROCESSING → COMPLETED: the reservation leaves pending; the fee goes to the platform', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 200 });
    const created = await createWithdrawal(t, m.key, { amount: 3000, description: 'payout' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const w = await settled(m.key, id);
    expect(Object.keys(w).sort()).toEqual(FULL_FIELDS);
    expect(w).toMatchObject({ id, amount: 3000, fee: 200, status: 'COMPLETED', failedReason: null, description: 'payout' });
    expect(w.end2endId).toMatch(/^E99999999\d{12}[A-Za-z0-9]{11}$/);
    expect(w.completedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(w.completedAt)).toBeGreaterThanOrEqual(Date.parse(w.createdAt));
    expect(await balanceOf(t, m.key)).toEqual({ available: 6800, pending: 0, blocked: 0 });
    expect(await postingsOf(id)).toEqual([
      { kind: 'WITHDRAWAL_RESERVE', account: `${m.id}:available`, amount: -3200 },
      { kind: 'WITHDRAWAL_RESERVE', account: `${m.id}:pending`, amount: 3200 },
      { kind: 'WITHDRAWAL_PAID', account: `${m.id}:pending`, amount: -3200 },
      { kind: 'WITHDRAWAL_PAID', account: 'platform:fee_revenue', amount: 200 },
      { kind: 'WITHDRAWAL_PAID', account: 'platform:psp_clearing', amount: 3000 },
    ]);
    expect(await simPayoutCount(t, id)).toBe(1);
    const events = await eventsOf(m.id);
    expect(events).toEqual([{ type: 'WITHDRAWAL_COMPLETED', data: w, callback_url: null }]);
    await t.assertLedger();
  });

  it('an EMAIL key at fail.test fails: failedReason set, amount AND fee back in available', async () => {
    const m = await fundedMerchant(t, 5000, { withdrawalFeeFixed: 75 });
    const created = await createWithdrawal(t, m.key, { amount: 4925, pixKey: 'someone@fail.test', pixKeyType: 'EMAIL' });
    expect(created.status).toBe(201);
    expect(await balanceOf(t, m.key)).toEqual({ available: 0, pending: 5000, blocked: 0 });
    const id = created.body.data.id;
    const w = await settled(m.key, id);
    expect(w).toMatchObject({
      status: 'FAILED', failedReason: 'Payout rejected by the receiving institution', completedAt: null, end2endId: null,
      pixKey: 'someone@fail.test', pixKeyType: 'EMAIL',
    });
    expect(await balanceOf(t, m.key)).toEqual({ available: 5000, pending: 0, blocked: 0 });
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE']);
    expect(await eventsOf(m.id)).toEqual([{ type: 'WITHDRAWAL_FAILED', data: w, callback_url: null }]);
    await t.assertLedger();
  });

  it('a new withdrawal is accepted once the previous one has ended, and the list shows both', async () => {
    const m = await fundedMerchant(t, 10_000);
    const first = await createWithdrawal(t, m.key, { amount: 1000, pixKey: 'x@fail.test', pixKeyType: 'EMAIL' });
    await settled(m.key, first.body.data.id);
    const second = await createWithdrawal(t, m.key, { amount: 2000 });
    expect(second.status).toBe(201);
    await settled(m.key, second.body.data.id);
    const third = await createWithdrawal(t, m.key, { amount: 3000 });
    expect(third.status).toBe(201);
    await settled(m.key, third.body.data.id);
    expect(await balanceOf(t, m.key)).toEqual({ available: 5000, pending: 0, blocked: 0 });
    const list = await t.request('GET', '/withdrawals', { key: m.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: any) => [w.amount, w.status])).toEqual([[3000, 'COMPLETED'], [2000, 'COMPLETED'], [1000, 'FAILED']]);
    await t.assertLedger();
  });
});
