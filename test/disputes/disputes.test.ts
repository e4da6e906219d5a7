import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDispute } from '../../src/disputes/dispute.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { balance, check, createCharge, events, expectError, pay, REFUND_KEYS, type Merchant } from '../charges/support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_REFUND_DELAY_MS: '600000' }); });
afterAll(async () => { await t?.close(); });

const dispute = (chargeId: string) => t.admin('POST', `/admin/simulator/charges/${chargeId}/dispute`);
const resolve = (disputeId: string, outcome: unknown) => t.admin('POST', `/admin/simulator/disputes/${disputeId}/resolve`, { outcome });
const clearing = async () =>
  (await t.pool.query<{ total: number }>("SELECT coalesce(sum(amount), 0)::bigint AS total FROM ledger_entries WHERE account_id = 'platform:psp_clearing'")).rows[0]!.total;

async function paidCharge(m: Merchant, body: Record<string, unknown> = {}) {
  const c = await createCharge(t, m, { amount: 10_000, ...body });
  await pay(t, c.id);
  return c;
}

describe('disputes (MED)', () => {
  it('opening blocks the merchant\'s net share: charge DISPUTED, available → blocked', async () => {
    const m = await t.merchant({ chargeFeeFixed: 100 });
    const r = await t.merchant();
    const c = await paidCharge(m, { split: [{ merchantId: r.id, mode: 'FIXED', value: 1_000 }] }); // net 8900
    const res = await dispute(c.id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['blockedAmount', 'chargeId', 'id', 'status']);
    expect(res.body.data).toMatchObject({ chargeId: c.id, status: 'OPEN', blockedAmount: 8_900 });
    expect(res.body.data.id).toMatch(/^dsp_[A-Za-z0-9]{22}$/);
    expect((await check(t, m, c.id)).status).toBe('DISPUTED');
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 8_900 });
    expect(await balance(t, r)).toEqual({ available: 1_000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('rejected: the block is lifted and the charge is PAID again (and refundable)', async () => {
    const m = await t.merchant();
    const c = await paidCharge(m);
    const opened = (await dispute(c.id)).body.data;
    const res = await resolve(opened.id, 'REJECTED');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: opened.id, chargeId: c.id, status: 'RESOLVED', outcome: 'REJECTED', blockedAmount: 10_000 });
    expect((await check(t, m, c.id)).status).toBe('PAID');
    expect(await check(t, m, c.id)).not.toHaveProperty('refund');
    expect(await balance(t, m)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    expectError(await resolve(opened.id, 'ACCEPTED'), 400, 'INVALID_STATE', 'Dispute is already resolved');
    expect((await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key })).status).toBe(200);
    await t.assertLedger();
  });

  it('accepted: the blocked amount returns to the payer as a COMPLETED DISPUTE refund; charge REFUNDED; REFUND_COMPLETED', async () => {
    const m = await t.merchant();
    const c = await paidCharge(m);
    const opened = (await dispute(c.id)).body.data;
    const before = await clearing();
    const res = await resolve(opened.id, 'ACCEPTED');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: opened.id, chargeId: c.id, status: 'RESOLVED', outcome: 'ACCEPTED', blockedAmount: 10_000 });
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 0 });
    expect((await clearing()) - before).toBe(10_000);
    const charge = await check(t, m, c.id);
    expect(charge.status).toBe('REFUNDED');
    expect(Object.keys(charge.refund).sort()).toEqual(REFUND_KEYS);
    expect(charge.refund).toMatchObject({ chargeId: c.id, amount: 10_000, status: 'COMPLETED', reason: 'DISPUTE', failedReason: null });
    expect(charge.refund.completedAt).not.toBeNull();
    const { imageBase64: _image, ...withoutImage } = charge;
    expect((await events(t, m.id, 'REFUND_COMPLETED')).map((e) => e.data)).toEqual([withoutImage]);
    expectError(await resolve(opened.id, 'ACCEPTED'), 400, 'INVALID_STATE');
    expectError(await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key }), 400, 'INVALID_STATE');
    await t.assertLedger();
  });

  it('caps the block at the available balance', async () => {
    const m = await t.merchant({ chargeFeeFixed: 100 });
    const a = await paidCharge(m);
    const b = await paidCharge(m);
    expect((await t.request('POST', `/transparents/refund?id=${b.id}`, { key: m.key })).status).toBe(200); // 19800 − 10000
    const opened = (await dispute(a.id)).body.data;
    expect(opened.blockedAmount).toBe(9_800);
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 9_800 });
    await resolve(opened.id, 'ACCEPTED');
    expect((await check(t, m, a.id)).refund).toMatchObject({ amount: 9_800, reason: 'DISPUTE', status: 'COMPLETED' });
    await t.assertLedger();
  });

  it('with nothing available, blocks 0; accepted makes a refund of 0 and moves no money', async () => {
    const m = await t.merchant({ chargeFeeBps: 5_000 });
    const a = await paidCharge(m, { amount: 1_000 }); // net 500
    const b = await paidCharge(m, { amount: 1_000 });
    await t.request('POST', `/transparents/refund?id=${b.id}`, { key: m.key }); // 1000 − 1000
    const opened = (await dispute(a.id)).body.data;
    expect(opened.blockedAmount).toBe(0);
    expect((await check(t, m, a.id)).status).toBe('DISPUTED');
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM ledger_transactions WHERE reference = $1', [opened.id]);
    expect(rows[0].n).toBe(0);
    const res = await resolve(opened.id, 'ACCEPTED');
    expect(res.body.data.blockedAmount).toBe(0);
    const charge = await check(t, m, a.id);
    expect(charge.status).toBe('REFUNDED');
    expect(charge.refund).toMatchObject({ amount: 0, status: 'COMPLETED', reason: 'DISPUTE' });
    await t.assertLedger();
  });

  it('a charge that is not PAID cannot be disputed (INVALID_STATE); unknown ids are 404', async () => {
    const m = await t.merchant();
    const pending = await createCharge(t, m);
    expectError(await dispute(pending.id), 400, 'INVALID_STATE', 'Charge is PENDING; only a PAID charge can be disputed');
    const c = await paidCharge(m);
    await dispute(c.id);
    expectError(await dispute(c.id), 400, 'INVALID_STATE', 'Charge is DISPUTED; only a PAID charge can be disputed');
    const refunded = await paidCharge(m);
    await t.request('POST', `/transparents/refund?id=${refunded.id}`, { key: m.key });
    expectError(await dispute(refunded.id), 400, 'INVALID_STATE');
    expectError(await dispute('chg_unknown'), 404, 'NOT_FOUND');
    expectError(await resolve('dsp_unknown', 'REJECTED'), 404, 'NOT_FOUND');
    expectError(await resolve('dsp_unknown', 'MAYBE'), 400, 'VALIDATION_ERROR', 'outcome: must be one of ACCEPTED, REJECTED');
  });

  it('two resolves at the same moment: exactly one applies', async () => {
    const m = await t.merchant();
    const c = await paidCharge(m);
    const opened = (await dispute(c.id)).body.data;
    const answers = await Promise.all([resolve(opened.id, 'ACCEPTED'), resolve(opened.id, 'REJECTED')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const outcome = answers.find((a) => a.status === 200)!.body.data.outcome;
    expect(await balance(t, m)).toEqual(outcome === 'REJECTED'
      ? { available: 10_000, pending: 0, blocked: 0 } : { available: 0, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('a provider reports an infraction by endToEndId through the same core function', async () => {
    const m = await t.merchant();
    const c = await paidCharge(m);
    const { end2endId } = await check(t, m, c.id);
    const opened = await openDispute(t.rt, { endToEndId: end2endId });
    expect(opened).toMatchObject({ chargeId: c.id, status: 'OPEN', blockedAmount: 10_000 });
    await expect(openDispute(t.rt, { endToEndId: end2endId })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await t.assertLedger();
  });
});
