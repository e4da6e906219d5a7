import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivePayment } from '../../src/charges/charge-payment.service.js';
import { newEndToEndId } from '../../src/pix/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { balance, CHECK_KEYS, check, createCharge, events, expectError, pay } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const feeRevenue = async () =>
  (await t.pool.query<{ total: number }>("SELECT coalesce(sum(amount), 0)::bigint AS total FROM ledger_entries WHERE account_id = 'platform:fee_revenue'")).rows[0]!.total;
const notification = (c: Record<string, any>, endToEndId = newEndToEndId('12345678', new Date())) =>
  ({ txid: c.txid as string, endToEndId, amount: c.amount as number, paidAt: new Date() });

describe('payment', () => {
  it('credits netAmount, each split share and the fee in one posting, with exact fee arithmetic', async () => {
    const m = await t.merchant({ chargeFeeFixed: 30, chargeFeeBps: 199 });
    const [r1, r2] = [await t.merchant(), await t.merchant()];
    const c = await createCharge(t, m, {
      amount: 12345, split: [{ merchantId: r1.id, mode: 'PERCENT', value: 10 }, { merchantId: r2.id, mode: 'FIXED', value: 500 }],
    });
    const feeBefore = await feeRevenue();
    const paid = await pay(t, c.id);
    // fee = 30 + floor(12345 × 199 / 10000) = 30 + floor(245.6655) = 275; PERCENT share floor(1234.5) = 1234
    expect(paid).toMatchObject({ status: 'PAID', fee: 275, netAmount: 12345 - 275 - 1234 - 500 });
    expect(paid.split.map((s: any) => s.amount)).toEqual([1234, 500]);
    expect(await balance(t, m)).toEqual({ available: 10336, pending: 0, blocked: 0 });
    expect(await balance(t, r1)).toEqual({ available: 1234, pending: 0, blocked: 0 });
    expect(await balance(t, r2)).toEqual({ available: 500, pending: 0, blocked: 0 });
    expect((await feeRevenue()) - feeBefore).toBe(275);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM ledger_transactions WHERE reference = $1', [c.id]);
    expect(rows[0].n).toBe(1);
    await t.assertLedger();
  });

  it('answers the charge as check shows it: PAID, paidAt, end2endId, image', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 2500 });
    const res = await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`, { payer: { name: 'Fulano', taxId: '52998224725' } });
    expect(res.status).toBe(200);
    const paid = res.body.data;
    expect(Object.keys(paid).sort()).toEqual(CHECK_KEYS);
    expect(paid).toMatchObject({ id: c.id, status: 'PAID', fee: 0, netAmount: 2500 });
    expect(paid.end2endId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    expect(paid.paidAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await check(t, m, c.id)).toEqual(paid);
    await t.assertLedger();
  });

  it('emits CHARGE_PAID to the merchant and SPLIT_RECEIVED to each recipient', async () => {
    const m = await t.merchant({ chargeFeeBps: 100 });
    const r = await t.merchant();
    const c = await createCharge(t, m, { amount: 1000, split: [{ merchantId: r.id, mode: 'PERCENT', value: 25 }] });
    const paid = await pay(t, c.id);
    const chargePaid = await events(t, m.id, 'CHARGE_PAID');
    expect(chargePaid).toHaveLength(1);
    const { imageBase64: _image, ...withoutImage } = paid;
    expect(chargePaid[0]!.data).toEqual(withoutImage);
    expect(await events(t, r.id)).toEqual([
      { type: 'SPLIT_RECEIVED', data: { chargeId: c.id, merchantId: m.id, amount: 250, paidAt: paid.paidAt } },
    ]);
    expect(await events(t, m.id, 'SPLIT_RECEIVED')).toEqual([]);
  });

  it('a payment notification delivered twice credits once and answers the charge', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 4000 });
    const n = notification(c);
    const first = await receivePayment(t.rt, n);
    const second = await receivePayment(t.rt, n);
    expect(first.status).toBe('PAID');
    expect(second).toEqual(first);
    expect(first.end2endId).toBe(n.endToEndId);
    expect(await balance(t, m)).toMatchObject({ available: 4000 });
    expect(await events(t, m.id, 'CHARGE_PAID')).toHaveLength(1);
    await t.assertLedger();
  });

  it('concurrent deliveries of one notification credit once', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 3000 });
    const n = notification(c);
    const answers = await Promise.all(Array.from({ length: 5 }, () => receivePayment(t.rt, n)));
    expect(new Set(answers.map((a) => a.end2endId))).toEqual(new Set([n.endToEndId]));
    expect(await balance(t, m)).toMatchObject({ available: 3000 });
    expect(await events(t, m.id, 'CHARGE_PAID')).toHaveLength(1);
    await t.assertLedger();
  });

  it('a second, different PIX to a paid charge is not credited again', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 3000 });
    const first = await receivePayment(t.rt, notification(c));
    const again = await receivePayment(t.rt, notification(c));
    expect(again.end2endId).toBe(first.end2endId);
    expect(await balance(t, m)).toMatchObject({ available: 3000 });
  });

  it('refuses a notification whose amount differs from the charge, and one for an unknown txid', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 3000 });
    await expect(receivePayment(t.rt, { ...notification(c), amount: 2999 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(receivePayment(t.rt, { ...notification(c), txid: 'unknownTxid' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await check(t, m, c.id)).status).toBe('PENDING');
  });

  it('simulator: paying a charge that is not PENDING is INVALID_STATE; unknown is 404; nothing moves', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 1500 });
    await pay(t, c.id);
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/charges/chg_unknown/pay'), 404, 'NOT_FOUND');
    expect(await balance(t, m)).toMatchObject({ available: 1500 });
    await t.assertLedger();
  });

  it('simulator: two concurrent pays of one charge, exactly one succeeds', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 1500 });
    const res = await Promise.all([1, 2].map(() => t.admin('POST', `/admin/simulator/charges/${c.id}/pay`)));
    expect(res.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await balance(t, m)).toMatchObject({ available: 1500 });
    await t.assertLedger();
  });

  it('simulator routes need the admin token', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m);
    expectError(await t.request('POST', `/admin/simulator/charges/${c.id}/pay`, { key: m.key }), 401, 'UNAUTHORIZED');
  });
});
