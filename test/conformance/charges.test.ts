// docs/contract/charges.md over HTTP: charge shapes, order of checks, split, refunds,
// disputes, expiry and the simulator's answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import {
  AMOUNT_DUE, balance, createCharge, expectError, expectOk, fund, idOf, ISO_MS, keys, pay, REFUND_KEYS, withKeys, type M,
} from './support.js';

let t: TestContext;
let m: M;
beforeAll(async () => {
  t = await createTestContext();
  m = await t.merchant();
});
afterAll(() => t?.close());

const customer = async (x: M, body: Record<string, unknown> = {}) =>
  expectOk(await t.request('POST', '/customers', { key: x.key, body: { email: 'payer@example.com', name: 'Payer', phone: '+5511988887777', ...body } }), 201);
const check = async (x: M, id: string) => expectOk(await t.request('GET', `/transparents/check?id=${id}`, { key: x.key }));
const listItem = async (x: M, id: string) => {
  const items = expectOk(await t.request('GET', `/transparents/list?id=${id}`, { key: x.key }));
  expect(items).toHaveLength(1);
  return items[0];
};
const refund = (x: M, id: string) => t.request('POST', `/transparents/refund?id=${id}`, { key: x.key });
/** Moves a charge's clock back so that it is past its expiresAt now (the expiry job has not run). */
const expireNow = (id: string) =>
  t.pool.query(`UPDATE charges SET created_at = created_at - interval '2 days', expires_at = now() - interval '1 millisecond' WHERE id = $1`, [id]);

describe('charge shapes (docs/contract/charges.md#charge-object)', () => {
  it('create: 201, every field of a charge with imageBase64, nulls until paid, no customer key, default expiry 86400 s', async () => {
    const c = await createCharge(t, m, { amount: 2500 });
    expect(keys(c)).toEqual(withKeys('imageBase64'));
    expect(c).toMatchObject({ amount: 2500, status: 'PENDING', description: null, split: [], paidAt: null, end2endId: null, fee: null, netAmount: null });
    expect(c.id).toMatch(idOf('chg'));
    expect(c.txid).toMatch(/^[A-Za-z0-9]{25}$/);
    expect(c.brCode).toMatch(/^000201/);
    expect(c.imageBase64).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    expect(c.createdAt).toMatch(ISO_MS);
    expect(c.expiresAt).toMatch(ISO_MS);
    expect(Date.parse(c.expiresAt) - Date.parse(c.createdAt)).toBe(86_400_000);
  });

  it('expiresIn sets expiresAt = createdAt + expiresIn exactly', async () => {
    for (const expiresIn of [60, 3601, 2_592_000]) {
      const c = await createCharge(t, m, { expiresIn });
      expect(Date.parse(c.expiresAt) - Date.parse(c.createdAt)).toBe(expiresIn * 1000);
    }
  });

  it('customer: {id, name, taxId, email} in create and list items; check adds phone', async () => {
    const cu = await customer(m, { taxId: '52998224725' });
    const c = await createCharge(t, m, { customerId: cu.id, description: 'Pedido 42' });
    const short = { id: cu.id, name: 'Payer', taxId: '52998224725', email: 'payer@example.com' };
    expect(c.customer).toEqual(short);
    expect(c.description).toBe('Pedido 42');
    const item = await listItem(m, c.id);
    expect(keys(item)).toEqual(withKeys('customer'));
    expect(item.customer).toEqual(short);
    const checked = await check(m, c.id);
    expect(keys(checked)).toEqual(withKeys('customer', 'imageBase64', ...AMOUNT_DUE));
    expect(checked.customer).toEqual({ ...short, phone: '+5511988887777' });
    const { imageBase64: _i, customer: _c, ...rest } = checked;
    const { imageBase64: _i2, customer: _c2, ...created } = c;
    expect(rest).toEqual({ ...created, amountDue: null, breakdown: null });
  });

  it('list items have no imageBase64 and no customer key without a customer; check is the list item plus the image and the amount due', async () => {
    const c = await createCharge(t, m);
    const item = await listItem(m, c.id);
    expect(keys(item)).toEqual(withKeys());
    const checked = await check(m, c.id);
    expect(keys(checked)).toEqual(withKeys('imageBase64', ...AMOUNT_DUE));
    expect({ ...item, imageBase64: checked.imageBase64, amountDue: null, breakdown: null }).toEqual(checked);
  });

  it('paid: paidAt, end2endId, fee and netAmount set; fee = fixed + floor(bps); netAmount = amount − fee − Σ split', async () => {
    const payer = await t.merchant({ chargeFeeFixed: 30, chargeFeeBps: 199 });
    const r = await t.merchant();
    const c = await createCharge(t, payer, { amount: 12_345, split: [{ merchantId: r.id, mode: 'PERCENT', value: 10 }] });
    expect(c.split).toEqual([{ merchantId: r.id, mode: 'PERCENT', value: 10, amount: 1234 }]);
    const paid = await pay(t, c.id);
    expect(paid).toMatchObject({ status: 'PAID', fee: 275, netAmount: 12_345 - 275 - 1234 });
    expect(paid.paidAt).toMatch(ISO_MS);
    expect(typeof paid.end2endId).toBe('string');
    expect(await balance(t, payer)).toEqual({ available: 10_836, pending: 0, blocked: 0 });
    expect(await balance(t, r)).toEqual({ available: 1234, pending: 0, blocked: 0 });
    const checked = await check(payer, c.id);
    expect(checked).toMatchObject({ status: 'PAID', paidAt: paid.paidAt, end2endId: paid.end2endId, fee: 275, netAmount: 10_836 });
    await t.assertLedger();
  });

  it('unknown or another merchant\'s charge: 404 on check and refund', async () => {
    const c = await createCharge(t, m);
    const x = await t.merchant();
    expectError(await t.request('GET', `/transparents/check?id=${c.id}`, { key: x.key }), 404, 'NOT_FOUND');
    expectError(await refund(x, c.id), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/transparents/check?id=chg_nope', { key: m.key }), 404, 'NOT_FOUND');
    expect(expectOk(await t.request('GET', `/transparents/list?id=${c.id}`, { key: x.key }))).toEqual([]);
  });
});

describe('create: order of checks and messages (docs/contract/charges.md#charges, docs/contract/charges.md#split)', () => {
  it('schema (400) → KYC APPROVED and PIX key (403) → the rest (400)', async () => {
    for (const fields of [{ kyc: { status: 'PENDING', tradeName: 'X' } }, { kyc: { status: 'REJECTED' } }, { pixKey: null }]) {
      const x = await t.merchant({ minTicket: 500, ...fields });
      const post = (body: Record<string, unknown>) => t.request('POST', '/transparents/create', { key: x.key, body: { method: 'PIX', ...body } });
      expectError(await post({ amount: 99 }), 400, 'VALIDATION_ERROR', 'amount: must be >= 100');
      expectError(await post({ amount: '1000' }), 400, 'VALIDATION_ERROR', 'amount: must be an integer');
      expectError(await post({ amount: 200 }), 403, 'FORBIDDEN');
      expectError(await post({ amount: 1000, customerId: 'cust_nope' }), 403, 'FORBIDDEN');
      expectError(await post({ amount: 1000, split: [{ merchantId: 'mer_nope', mode: 'FIXED', value: 1 }] }), 403, 'FORBIDDEN');
    }
  });

  it.each([
    [{ method: 'BOLETO', amount: 1000 }, 'method: must be PIX'],
    [{ amount: 1000 }, 'method: is required'],
    [{ method: 'PIX' }, 'amount: is required'],
    [{ method: 'PIX', amount: 100_000_001 }, 'amount: must be <= 100000000'],
    [{ method: 'PIX', amount: 1000, description: 'x'.repeat(141) }, 'description: must have at most 140 characters'],
    [{ method: 'PIX', amount: 1000, expiresIn: 59 }, 'expiresIn: must be >= 60'],
    [{ method: 'PIX', amount: 1000, expiresIn: 2_592_001 }, 'expiresIn: must be <= 2592000'],
    [{ method: 'PIX', amount: 1000, split: {} }, 'split: must be an array'],
    [{ method: 'PIX', amount: 1000, split: [{ mode: 'FIXED', value: 1 }] }, 'split[0].merchantId: is required'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'HALF', value: 1 }] }, 'split[0].mode: must be one of FIXED, PERCENT'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'FIXED', value: 0 }] }, 'split[0].value: must be >= 1'],
  ])('%j → %s', async (body, message) => {
    expectError(await t.request('POST', '/transparents/create', { key: m.key, body }), 400, 'VALIDATION_ERROR', message);
  });

  it('amount within the merchant\'s minTicket / maxTicket', async () => {
    const x = await t.merchant({ minTicket: 500, maxTicket: 2000 });
    const post = (amount: number) => t.request('POST', '/transparents/create', { key: x.key, body: { method: 'PIX', amount } });
    expectError(await post(499), 400, 'VALIDATION_ERROR', 'amount: must be >= 500');
    expectError(await post(2001), 400, 'VALIDATION_ERROR', 'amount: must be <= 2000');
    expectOk(await post(500), 201);
    expectOk(await post(2000), 201);
  });

  it('customerId unknown, deleted or another merchant\'s: "customerId: not found"', async () => {
    const x = await t.merchant();
    const theirs = await customer(x);
    const deleted = await customer(m);
    expectOk(await t.request('DELETE', `/customers/${deleted.id}`, { key: m.key }));
    for (const customerId of ['cust_nope', theirs.id, deleted.id]) {
      expectError(await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000, customerId } }),
        400, 'VALIDATION_ERROR', 'customerId: not found');
    }
  });

  it('split recipients: exist, KYC APPROVED, active, with a PIX key, not the merchant, once each; PERCENT 1..100; net ≥ 0', async () => {
    const ok = await t.merchant();
    const pending = await t.merchant({ kyc: { status: 'PENDING' } });
    const noKey = await t.merchant({ pixKey: null });
    const suspended = await t.merchant();
    expectOk(await t.admin('PATCH', `/admin/merchants/${suspended.id}`, { suspended: true }));
    const post = (split: unknown[]) => t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000, split } });
    const entry = (merchantId: string, mode = 'FIXED', value = 10) => ({ merchantId, mode, value });
    for (const [split, field] of [
      [[entry('mer_nope')], 'split[0].merchantId'],
      [[entry(ok.id), entry(pending.id)], 'split[1].merchantId'],
      [[entry(noKey.id)], 'split[0].merchantId'],
      [[entry(suspended.id)], 'split[0].merchantId'],
      [[entry(m.id)], 'split[0].merchantId'],
      [[entry(ok.id), entry(ok.id)], 'split[1].merchantId'],
      [[entry(ok.id, 'PERCENT', 101)], 'split[0].value'],
      [[entry(ok.id, 'FIXED', 1001)], 'split'],
    ] as const) {
      const res = await post([...split]);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message.startsWith(`${field}: `)).toBe(true);
    }
    expectError(await post(Array.from({ length: 11 }, () => entry(ok.id))), 400, 'VALIDATION_ERROR', 'split: must have at most 10 items');
    const full = expectOk(await post([entry(ok.id, 'PERCENT', 100)]), 201);
    expect(full.split).toEqual([{ merchantId: ok.id, mode: 'PERCENT', value: 100, amount: 1000 }]);
    expect(expectOk(await post([]), 201).split).toEqual([]);
  });
});

describe('refunds (docs/contract/charges.md#refunds)', () => {
  it('PAID → 200 the charge as check shows it, REFUNDED, carrying a PENDING refund; debits merchant amount − Σ split and each recipient', async () => {
    const x = await t.merchant({ chargeFeeFixed: 100 });
    const r = await t.merchant();
    await fund(t, x, 5000);
    const cu = await customer(x);
    const c = await createCharge(t, x, { amount: 10_000, customerId: cu.id, split: [{ merchantId: r.id, mode: 'FIXED', value: 3000 }] });
    await pay(t, c.id);
    // The funding charge paid its fee of 100 too.
    expect(await balance(t, x)).toMatchObject({ available: 4900 + 6900 });
    const res = await refund(x, c.id);
    const data = expectOk(res, 200);
    expect(keys(data)).toEqual(withKeys('customer', 'imageBase64', 'refund', ...AMOUNT_DUE));
    expect(data.status).toBe('REFUNDED');
    expect(data.customer).toHaveProperty('phone');
    expect(keys(data.refund)).toEqual(REFUND_KEYS);
    expect(data.refund).toMatchObject({ chargeId: c.id, amount: 10_000, status: 'PENDING', reason: 'MERCHANT', failedReason: null, completedAt: null });
    expect(data.refund.id).toMatch(idOf('ref'));
    expect(data.refund.createdAt).toMatch(ISO_MS);
    expect(await check(x, c.id)).toEqual(data);
    expect((await listItem(x, c.id)).refund).toEqual(data.refund);
    expect(await balance(t, x)).toMatchObject({ available: 4900 + 6900 - 7000 });
    expect(await balance(t, r)).toMatchObject({ available: 0 });
    await t.assertLedger();
  });

  it('any party short of balance: INSUFFICIENT_BALANCE naming it, nothing debited', async () => {
    const x = await t.merchant({ chargeFeeFixed: 100 });
    const r = await t.merchant();
    const c = await createCharge(t, x, { amount: 10_000 });
    await pay(t, c.id);
    expectError(await refund(x, c.id), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${x.id}`);
    expect(await balance(t, x)).toMatchObject({ available: 9900 });

    const y = await t.merchant();
    await fund(t, y, 10_000);
    const s = await createCharge(t, y, { amount: 10_000, split: [{ merchantId: r.id, mode: 'PERCENT', value: 20 }] });
    await pay(t, s.id);
    const w = expectOk(await t.request('POST', '/withdrawals', { key: r.key, body: { amount: 1500, pixKey: 'a@example.com', pixKeyType: 'EMAIL' } }), 201);
    expectError(await refund(y, s.id), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${r.id}`);
    expect(await balance(t, y)).toMatchObject({ available: 18_000 });
    expect((await check(y, s.id)).status).toBe('PAID');
    expect(await check(y, s.id)).not.toHaveProperty('refund');
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/fail`));
    await t.assertLedger();
  });

  it('not PAID (PENDING, EXPIRED, REFUNDED, DISPUTED): INVALID_STATE', async () => {
    await fund(t, m, 10_000);
    const pending = await createCharge(t, m);
    expectError(await refund(m, pending.id), 400, 'INVALID_STATE');
    const expired = await createCharge(t, m);
    await expireNow(expired.id);
    expectError(await refund(m, expired.id), 400, 'INVALID_STATE');
    const refunded = await createCharge(t, m);
    await pay(t, refunded.id);
    expectOk(await refund(m, refunded.id));
    expectError(await refund(m, refunded.id), 400, 'INVALID_STATE');
    const disputed = await createCharge(t, m);
    await pay(t, disputed.id);
    expectOk(await t.admin('POST', `/admin/simulator/charges/${disputed.id}/dispute`));
    expectError(await refund(m, disputed.id), 400, 'INVALID_STATE');
    await t.assertLedger();
  });

  it('provider fails: debits reversed, charge PAID, refund FAILED with failedReason; completes: completedAt set', async () => {
    const x = await t.merchant();
    await fund(t, x, 1000);
    const c = await createCharge(t, x, { amount: 3000 });
    await pay(t, c.id);
    const first = expectOk(await refund(x, c.id)).refund;
    const failed = expectOk(await t.admin('POST', `/admin/simulator/refunds/${first.id}/fail`, { reason: 'Conta encerrada' }));
    expect(failed.status).toBe('PAID');
    expect(failed.refund).toEqual({ ...first, status: 'FAILED', failedReason: 'Conta encerrada' });
    expect(await balance(t, x)).toMatchObject({ available: 4000 });
    expectError(await t.admin('POST', `/admin/simulator/refunds/${first.id}/complete`), 400, 'INVALID_STATE');
    const second = expectOk(await refund(x, c.id)).refund;
    expect(second.id).not.toBe(first.id);
    const done = expectOk(await t.admin('POST', `/admin/simulator/refunds/${second.id}/complete`));
    expect(done.status).toBe('REFUNDED');
    expect(done.refund).toMatchObject({ id: second.id, status: 'COMPLETED', failedReason: null });
    expect(done.refund.completedAt).toMatch(ISO_MS);
    expect((await check(x, c.id)).refund).toEqual(done.refund);
    expectError(await t.admin('POST', `/admin/simulator/refunds/${second.id}/fail`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/refunds/ref_nope/complete'), 404, 'NOT_FOUND');
    expect(await balance(t, x)).toMatchObject({ available: 1000 });
    await t.assertLedger();
  });
});

describe('disputes (docs/contract/charges.md#disputes)', () => {
  it('open: 200 {id, chargeId, status: OPEN, blockedAmount} capped at available; not PAID: INVALID_STATE', async () => {
    const x = await t.merchant();
    const c = await createCharge(t, x, { amount: 5000 });
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`), 400, 'INVALID_STATE');
    await pay(t, c.id);
    const w = expectOk(await t.request('POST', '/withdrawals', { key: x.key, body: { amount: 2000, pixKey: 'a@example.com', pixKeyType: 'EMAIL' } }), 201);
    const d = expectOk(await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`));
    expect(keys(d)).toEqual(['blockedAmount', 'chargeId', 'id', 'status']);
    expect(d).toMatchObject({ chargeId: c.id, status: 'OPEN', blockedAmount: 3000 });
    expect(d.id).toMatch(idOf('dsp'));
    expect(await balance(t, x)).toEqual({ available: 0, pending: 2000, blocked: 3000 });
    expect((await check(x, c.id)).status).toBe('DISPUTED');
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/charges/chg_nope/dispute'), 404, 'NOT_FOUND');
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/complete`));

    const rejected = expectOk(await t.admin('POST', `/admin/simulator/disputes/${d.id}/resolve`, { outcome: 'REJECTED' }));
    expect(rejected).toEqual({ id: d.id, chargeId: c.id, status: 'RESOLVED', outcome: 'REJECTED', blockedAmount: 3000 });
    expect((await check(x, c.id)).status).toBe('PAID');
    expect(await balance(t, x)).toEqual({ available: 3000, pending: 0, blocked: 0 });
    expectError(await t.admin('POST', `/admin/simulator/disputes/${d.id}/resolve`, { outcome: 'ACCEPTED' }), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', `/admin/simulator/disputes/${d.id}/resolve`, { outcome: 'MAYBE' }), 400, 'VALIDATION_ERROR',
      'outcome: must be one of ACCEPTED, REJECTED');
    expectError(await t.admin('POST', '/admin/simulator/disputes/dsp_nope/resolve', { outcome: 'ACCEPTED' }), 404, 'NOT_FOUND');

    const d2 = expectOk(await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`));
    const accepted = expectOk(await t.admin('POST', `/admin/simulator/disputes/${d2.id}/resolve`, { outcome: 'ACCEPTED' }));
    expect(accepted).toEqual({ id: d2.id, chargeId: c.id, status: 'RESOLVED', outcome: 'ACCEPTED', blockedAmount: 3000 });
    const after = await check(x, c.id);
    expect(after.status).toBe('REFUNDED');
    expect(after.refund).toMatchObject({ chargeId: c.id, amount: 3000, status: 'COMPLETED', reason: 'DISPUTE', failedReason: null });
    expect(after.refund.completedAt).toMatch(ISO_MS);
    expect(await balance(t, x)).toEqual({ available: 0, pending: 0, blocked: 0 });
    await t.assertLedger();
  });
});

describe('expiry is exact (docs/contract/charges.md#expiry)', () => {
  it('past expiresAt every read is EXPIRED before the job runs; the simulator cannot pay it', async () => {
    const c = await createCharge(t, m);
    await expireNow(c.id);
    expect((await check(m, c.id)).status).toBe('EXPIRED');
    expect((await listItem(m, c.id)).status).toBe('EXPIRED');
    const pending = expectOk(await t.request('GET', `/transparents/list?status=PENDING&id=${c.id}`, { key: m.key }));
    expect(pending).toEqual([]);
    expect(expectOk(await t.request('GET', `/transparents/list?status=EXPIRED&id=${c.id}`, { key: m.key }))).toHaveLength(1);
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`), 400, 'INVALID_STATE');
  });
});

describe('simulator pay (docs/contract/operator.md#simulator)', () => {
  it('200 the charge PAID; not PENDING: INVALID_STATE; unknown: 404; optional payer body', async () => {
    const c = await createCharge(t, m);
    const paid = expectOk(await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`, { payer: { name: 'Fulano', taxId: '52998224725' } }));
    expect(paid).toMatchObject({ id: c.id, status: 'PAID' });
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/charges/chg_nope/pay'), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `/admin/simulator/charges/${c.id}/pay`, { key: m.key }), 401, 'UNAUTHORIZED');
  });
});
