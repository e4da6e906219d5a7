import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { balance, CHECK_KEYS, check, createCharge, events, expectError, pay, REFUND_KEYS, type Merchant } from '../charges/support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_REFUND_DELAY_MS: '600000' }); });
afterAll(async () => { await t?.close(); });

const refund = (m: Merchant, id: string, headers?: Record<string, string>) => t.request('POST', `/transparents/refund?id=${id}`, { key: m.key, headers });
const platform = async (account: string) =>
  (await t.pool.query<{ total: number }>('SELECT coalesce(sum(amount), 0)::bigint AS total FROM ledger_entries WHERE account_id = $1', [account])).rows[0]!.total;
const refundCount = async (chargeId: string) => (await t.pool.query('SELECT count(*)::int AS n FROM refunds WHERE charge_id = $1', [chargeId])).rows[0].n;

/** A merchant with a paid charge (and, with `extra`, a second paid charge that leaves room to return the fee). */
async function paidCharge(fields: Record<string, unknown> = {}, body: Record<string, unknown> = {}, extra = 0) {
  const m = await t.merchant(fields);
  const c = await createCharge(t, m, { amount: 10_000, ...body });
  await pay(t, c.id);
  if (extra) await pay(t, (await createCharge(t, m, { amount: extra })).id);
  return { m, c };
}

describe('POST /transparents/refund', () => {
  it('refunds a PAID charge: 200 with the charge as check shows it, carrying a PENDING refund', async () => {
    const { m, c } = await paidCharge();
    const inTransit = await platform('platform:payouts_in_transit');
    const res = await refund(m, c.id);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([...CHECK_KEYS, 'refund'].sort());
    expect(data.status).toBe('REFUNDED');
    expect(Object.keys(data.refund).sort()).toEqual(REFUND_KEYS);
    expect(data.refund).toMatchObject({ chargeId: c.id, amount: 10_000, status: 'PENDING', reason: 'MERCHANT', failedReason: null, completedAt: null });
    expect(data.refund.id).toMatch(/^ref_[A-Za-z0-9]{22}$/);
    expect(await check(t, m, c.id)).toEqual(data);
    const listed = (await t.request('GET', `/transparents/list?id=${c.id}`, { key: m.key })).body.data[0];
    expect(listed.refund).toEqual(data.refund);
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 0 });
    expect((await platform('platform:payouts_in_transit')) - inTransit).toBe(10_000);
    expect(await events(t, m.id, 'REFUND_COMPLETED')).toEqual([]);
    await t.assertLedger();
  });

  it('accepts an empty JSON body, as clients send', async () => {
    const { m, c } = await paidCharge();
    const res = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key, payload: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
  });

  it('keeps the fee: the merchant is debited the whole amount minus splits; short of it → INSUFFICIENT_BALANCE naming it, nothing changes', async () => {
    const { m, c } = await paidCharge({ chargeFeeFixed: 100 }); // net 9900, debit 10000
    expect(await balance(t, m)).toMatchObject({ available: 9_900 });
    expectError(await refund(m, c.id), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${m.id}`);
    expect((await check(t, m, c.id)).status).toBe('PAID');
    expect(await check(t, m, c.id)).not.toHaveProperty('refund');
    expect(await balance(t, m)).toMatchObject({ available: 9_900 });
    expect(await refundCount(c.id)).toBe(0);
    await pay(t, (await createCharge(t, m, { amount: 200 })).id); // +100 net
    expect((await refund(m, c.id)).status).toBe(200);
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    await t.assertLedger();
  });

  it('with a split: merchant debited amount − Σ split, each recipient its share, in one posting', async () => {
    const [r1, r2] = [await t.merchant(), await t.merchant()];
    const { m, c } = await paidCharge({ chargeFeeBps: 250 }, {
      split: [{ merchantId: r1.id, mode: 'PERCENT', value: 15 }, { merchantId: r2.id, mode: 'FIXED', value: 999 }],
    }, 1_000); // fee 250 on the charge; the extra charge nets 975
    expect(await balance(t, m)).toMatchObject({ available: 10_000 - 250 - 1_500 - 999 + 975 });
    const res = await refund(m, c.id);
    expect(res.status).toBe(200);
    expect(await balance(t, m)).toMatchObject({ available: 8_226 - (10_000 - 1_500 - 999) });
    expect(await balance(t, r1)).toMatchObject({ available: 0 });
    expect(await balance(t, r2)).toMatchObject({ available: 0 });
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM ledger_transactions WHERE kind = 'REFUND' AND reference = $1", [res.body.data.refund.id]);
    expect(rows[0].n).toBe(1);
    await t.assertLedger();
  });

  it('a split recipient short of balance fails the whole refund with INSUFFICIENT_BALANCE naming the recipient', async () => {
    const r = await t.merchant({ chargeFeeFixed: 100 });
    const { m, c } = await paidCharge({}, { split: [{ merchantId: r.id, mode: 'FIXED', value: 500 }] });
    // The recipient spends part of its share: it refunds its own charge, whose fee it cannot get back.
    const own = await createCharge(t, r, { amount: 1_000 });
    await pay(t, own.id);
    expect((await refund(r, own.id)).status).toBe(200);
    expect(await balance(t, r)).toMatchObject({ available: 400 });
    const before = await balance(t, m);
    expectError(await refund(m, c.id), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${r.id}`);
    expect(await balance(t, m)).toEqual(before);
    expect(await balance(t, r)).toMatchObject({ available: 400 });
    expect((await check(t, m, c.id)).status).toBe('PAID');
    expect(await refundCount(c.id)).toBe(0);
    await t.assertLedger();
  });

  it('a charge that is not PAID is INVALID_STATE; unknown or another merchant\'s is 404', async () => {
    const m = await t.merchant();
    const pending = await createCharge(t, m);
    expectError(await refund(m, pending.id), 400, 'INVALID_STATE', 'Charge is PENDING; only a PAID charge can be refunded');
    const expired = await createCharge(t, m, { expiresIn: 60 });
    await t.pool.query("UPDATE charges SET created_at = created_at - interval '2 minutes', expires_at = expires_at - interval '2 minutes' WHERE id = $1", [expired.id]);
    expectError(await refund(m, expired.id), 400, 'INVALID_STATE', 'Charge is EXPIRED; only a PAID charge can be refunded');
    const disputed = await createCharge(t, m);
    await pay(t, disputed.id);
    await t.admin('POST', `/admin/simulator/charges/${disputed.id}/dispute`);
    expectError(await refund(m, disputed.id), 400, 'INVALID_STATE', 'Charge is DISPUTED; only a PAID charge can be refunded');
    const { m: owner, c } = await paidCharge();
    expect((await refund(owner, c.id)).status).toBe(200);
    expectError(await refund(owner, c.id), 400, 'INVALID_STATE', 'Charge is REFUNDED; only a PAID charge can be refunded');
    expectError(await refund(m, c.id), 404, 'NOT_FOUND');
    expectError(await refund(m, 'chg_unknown'), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/transparents/refund', { key: m.key }), 400, 'VALIDATION_ERROR', 'id: is required');
  });

  it('two refunds of one charge at the same moment: exactly one succeeds, debited once', async () => {
    const { m, c } = await paidCharge({}, {}, 30_000);
    const answers = await Promise.all(Array.from({ length: 4 }, () => refund(m, c.id)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
    expect(answers.filter((a) => a.status === 400).every((a) => a.body.error === 'INVALID_STATE')).toBe(true);
    expect(await balance(t, m)).toMatchObject({ available: 30_000 });
    expect(await refundCount(c.id)).toBe(1);
    await t.assertLedger();
  });

  it('the database allows one live refund per charge whatever the code does', async () => {
    const { m, c } = await paidCharge();
    const first = (await refund(m, c.id)).body.data.refund;
    await expect(t.pool.query(
      "INSERT INTO refunds (id, merchant_id, charge_id, amount, merchant_debit, reason) VALUES ('ref_dup', $1, $2, 1, 1, 'MERCHANT')", [m.id, c.id],
    )).rejects.toMatchObject({ code: '23505' });
    expect(first.status).toBe('PENDING');
  });

  it('replays a stored answer for the same Idempotency-Key, a business rejection included', async () => {
    const { m, c } = await paidCharge({ chargeFeeFixed: 100 });
    const headers = { 'idempotency-key': `refund-${c.id}` };
    const rejected = await refund(m, c.id, headers);
    expectError(rejected, 400, 'INSUFFICIENT_BALANCE');
    await pay(t, (await createCharge(t, m, { amount: 200 })).id);
    expect((await refund(m, c.id, headers)).body).toEqual(rejected.body);
    const accepted = await refund(m, c.id, { 'idempotency-key': `refund-${c.id}-2` });
    expect(accepted.status).toBe(200);
    expect((await refund(m, c.id, { 'idempotency-key': `refund-${c.id}-2` })).body).toEqual(accepted.body);
    expect(await refundCount(c.id)).toBe(1);
  });
});

describe('refund outcome from the provider (simulator controls)', () => {
  it('complete: refund COMPLETED with completedAt, money leaves in-transit, REFUND_COMPLETED once', async () => {
    const { m, c } = await paidCharge();
    const refundId = (await refund(m, c.id)).body.data.refund.id;
    const [inTransit, clearing] = [await platform('platform:payouts_in_transit'), await platform('platform:psp_clearing')];
    const res = await t.admin('POST', `/admin/simulator/refunds/${refundId}/complete`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([...CHECK_KEYS, 'refund'].sort());
    expect(res.body.data.status).toBe('REFUNDED');
    expect(res.body.data.refund).toMatchObject({ id: refundId, status: 'COMPLETED', failedReason: null });
    expect(Date.parse(res.body.data.refund.completedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.data.refund.createdAt));
    expect(await platform('platform:payouts_in_transit')).toBe(inTransit - 10_000);
    expect(await platform('platform:psp_clearing')).toBe(clearing + 10_000);
    const completed = await events(t, m.id, 'REFUND_COMPLETED');
    const { imageBase64: _image, ...withoutImage } = res.body.data;
    expect(completed.map((e) => e.data)).toEqual([withoutImage]);
    expectError(await t.admin('POST', `/admin/simulator/refunds/${refundId}/complete`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', `/admin/simulator/refunds/${refundId}/fail`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/refunds/ref_unknown/complete'), 404, 'NOT_FOUND');
    expect(await events(t, m.id, 'REFUND_COMPLETED')).toHaveLength(1);
    await t.assertLedger();
  });

  it('fail: every debit reversed, charge PAID again, refund FAILED with failedReason, REFUND_FAILED; a new refund is then possible', async () => {
    const r = await t.merchant();
    const { m, c } = await paidCharge({ chargeFeeFixed: 50 }, { split: [{ merchantId: r.id, mode: 'PERCENT', value: 30 }] }, 1_000);
    const [mBefore, rBefore] = [await balance(t, m), await balance(t, r)];
    const inTransit = await platform('platform:payouts_in_transit');
    const refundId = (await refund(m, c.id)).body.data.refund.id;
    expect(await balance(t, m)).toMatchObject({ available: mBefore.available - 7_000 });
    expect(await balance(t, r)).toMatchObject({ available: rBefore.available - 3_000 });
    const res = await t.admin('POST', `/admin/simulator/refunds/${refundId}/fail`, { reason: 'Payer account closed' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('PAID');
    expect(res.body.data.refund).toMatchObject({ id: refundId, status: 'FAILED', failedReason: 'Payer account closed', completedAt: null });
    expect(await balance(t, m)).toEqual(mBefore);
    expect(await balance(t, r)).toEqual(rBefore);
    expect(await platform('platform:payouts_in_transit')).toBe(inTransit);
    const failed = await events(t, m.id, 'REFUND_FAILED');
    const { imageBase64: _image, ...withoutImage } = res.body.data;
    expect(failed.map((e) => e.data)).toEqual([withoutImage]);
    expectError(await t.admin('POST', `/admin/simulator/refunds/${refundId}/complete`), 400, 'INVALID_STATE');

    const again = await refund(m, c.id);
    expect(again.status).toBe(200);
    expect(again.body.data.refund.id).not.toBe(refundId);
    expect(again.body.data.refund.status).toBe('PENDING');
    await t.admin('POST', `/admin/simulator/refunds/${again.body.data.refund.id}/fail`);
    const latest = (await check(t, m, c.id)).refund;
    expect(latest).toMatchObject({ id: again.body.data.refund.id, status: 'FAILED', failedReason: 'The provider could not return the payment' });
    await t.assertLedger();
  });
});
