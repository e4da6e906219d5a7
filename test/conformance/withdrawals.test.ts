// docs/contract/withdrawals.md over HTTP: shapes, order of checks, money, simulator.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, expectError, expectOk, fund, idOf, ISO_MS, keys, type M } from './support.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '300000' });
});
afterAll(() => t?.close());

const CREATED = ['amount', 'createdAt', 'description', 'fee', 'id', 'status'];
const LISTED = [...CREATED, 'completedAt', 'failedReason'].sort();
const FULL = [...LISTED, 'end2endId', 'pixKey', 'pixKeyType', 'taxId'].sort();
const email = { pixKey: 'someone@example.com', pixKeyType: 'EMAIL' };
const post = (x: M, body: Record<string, unknown>, headers?: Record<string, string>) =>
  t.request('POST', '/withdrawals', { key: x.key, body: { ...email, ...body }, headers });
const get = async (x: M, id: string) => expectOk(await t.request('GET', `/withdrawals/${id}`, { key: x.key }));
const funded = async (cents: number, fields: Record<string, unknown> = {}) => {
  const x = await t.merchant(fields);
  if (cents > 0) await fund(t, x, cents);
  return x;
};

describe('shapes (docs/contract/withdrawals.md#withdrawals)', () => {
  it('create {id, amount, fee, status, description, createdAt}; list adds completedAt, failedReason; get the full record', async () => {
    const x = await funded(10_000, { withdrawalFeeFixed: 150 });
    const evp = randomUUID().toUpperCase();
    const created = expectOk(await post(x, { amount: 1000, pixKey: evp, pixKeyType: 'CHAVE_ALEATORIA', description: 'Saque', taxId: '529.982.247-25' }), 201);
    expect(keys(created)).toEqual(CREATED);
    expect(created).toMatchObject({ amount: 1000, fee: 150, status: 'PENDING', description: 'Saque' });
    expect(created.id).toMatch(idOf('wd'));
    expect(created.createdAt).toMatch(ISO_MS);
    const [item] = expectOk(await t.request('GET', '/withdrawals', { key: x.key }));
    expect(keys(item)).toEqual(LISTED);
    expect(item).toMatchObject({ id: created.id, completedAt: null, failedReason: null });
    const full = await get(x, created.id);
    expect(keys(full)).toEqual(FULL);
    expect(full).toMatchObject({ pixKey: evp.toLowerCase(), pixKeyType: 'CHAVE_ALEATORIA', taxId: '529.982.247-25', end2endId: null });
    expect(await balance(t, x)).toEqual({ available: 10_000 - 1150, pending: 1150, blocked: 0 });
    const done = expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${created.id}/complete`));
    expect(keys(done)).toEqual(FULL);
    expect(done).toMatchObject({ status: 'COMPLETED', failedReason: null });
    expect(done.completedAt).toMatch(ISO_MS);
    expect(typeof done.end2endId).toBe('string');
    expect(await get(x, created.id)).toEqual(done);
    expect(await balance(t, x)).toEqual({ available: 8850, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('absent optional fields are null; another merchant\'s or an unknown id is 404', async () => {
    const x = await funded(1000);
    const created = expectOk(await post(x, { amount: 100 }), 201);
    expect(created.description).toBeNull();
    expect((await get(x, created.id)).taxId).toBeNull();
    const y = await t.merchant();
    expectError(await t.request('GET', `/withdrawals/${created.id}`, { key: y.key }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/withdrawals/wd_nope', { key: x.key }), 404, 'NOT_FOUND');
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${created.id}/fail`));
  });
});

describe('validation (docs/contract/withdrawals.md#withdrawals, docs/contract/withdrawals.md#pix-keys)', () => {
  it.each([
    [{ amount: 49 }, 'amount: must be >= 50'],
    [{ amount: 100_000_001 }, 'amount: must be <= 100000000'],
    [{ amount: 100, pixKey: '' }, 'pixKey: must have at least 1 character'],
    [{ amount: 100, pixKey: 'x'.repeat(141) }, 'pixKey: must have at most 140 characters'],
    [{ amount: 100, pixKeyType: 'PHONE' }, 'pixKeyType: must be one of CPF, CNPJ, EMAIL, TELEFONE, CHAVE_ALEATORIA'],
    [{ amount: 100, description: 'x'.repeat(141) }, 'description: must have at most 140 characters'],
    [{ amount: 100, taxId: '1'.repeat(19) }, 'taxId: must have at most 18 characters'],
  ])('%j → %s', async (body, message) => {
    const x = await t.merchant();
    expectError(await post(x, body), 400, 'VALIDATION_ERROR', message);
  });

  it('PIX key by type: repeated digits, check digits, e-mail ≤ 77, +55 and 10–11 digits, UUID', async () => {
    const x = await t.merchant();
    for (const [pixKeyType, pixKey] of [
      ['CPF', '11111111111'], ['CPF', '52998224726'], ['CPF', '529.982.247-25'], ['CNPJ', '11222333000182'], ['CNPJ', '00000000000000'],
      ['EMAIL', 'no-at-sign'], ['EMAIL', `${'a'.repeat(70)}@example.com`], ['TELEFONE', '11999999999'], ['TELEFONE', '+551199999999999'],
      ['CHAVE_ALEATORIA', 'not-a-uuid'],
    ]) {
      const res = await post(x, { amount: 100, pixKey, pixKeyType });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message.startsWith('pixKey: ')).toBe(true);
    }
    const y = await funded(10_000);
    for (const [pixKeyType, pixKey] of [
      ['CPF', '52998224725'], ['CNPJ', '11222333000181'], ['EMAIL', 'a@example.com'], ['TELEFONE', '+5511999999999'], ['TELEFONE', '+551133334444'],
    ]) {
      const w = expectOk(await post(y, { amount: 100, pixKey, pixKeyType }), 201);
      expect((await get(y, w.id)).pixKey).toBe(pixKey);
      expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/complete`));
    }
  });

  it('taxId: up to 18 characters of digits and . - /', async () => {
    const x = await funded(1000);
    expectError(await post(x, { amount: 100, taxId: '529982247AB' }), 400, 'VALIDATION_ERROR');
    const w = expectOk(await post(x, { amount: 100, taxId: '11.222.333/0001-81' }), 201);
    expect((await get(x, w.id)).taxId).toBe('11.222.333/0001-81');
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/fail`));
  });
});

describe('order of checks (docs/contract/withdrawals.md#withdrawal-checks)', () => {
  it('validation → disabled (403) → in progress → merchant limit → balance', async () => {
    const x = await funded(1000, { maxWithdrawal: 2000, withdrawalFeeFixed: 10 });
    expectError(await post(x, { amount: 991 }), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${x.id}`);
    expectError(await post(x, { amount: 2001 }), 400, 'VALIDATION_ERROR', 'amount: must be <= 2000');
    // Exactly amount + fee available is enough.
    const w = expectOk(await post(x, { amount: 990 }), 201);
    expect(await balance(t, x)).toEqual({ available: 0, pending: 1000, blocked: 0 });
    expectError(await post(x, { amount: 100_000 }), 400, 'WITHDRAWAL_IN_PROGRESS');
    expectError(await post(x, { amount: 2001 }), 400, 'WITHDRAWAL_IN_PROGRESS');
    expectOk(await t.admin('PATCH', `/admin/merchants/${x.id}`, { withdrawalsEnabled: false }));
    expectError(await post(x, { amount: 100 }), 403, 'FORBIDDEN', 'Withdrawals are temporarily blocked for this merchant');
    expectError(await post(x, { amount: 10 }), 400, 'VALIDATION_ERROR', 'amount: must be >= 50');
    expectError(await post(x, { amount: 100, pixKey: 'nope' }), 400, 'VALIDATION_ERROR');
    expectOk(await t.admin('PATCH', `/admin/merchants/${x.id}`, { withdrawalsEnabled: true }));
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/complete`));
    expect(await balance(t, x)).toEqual({ available: 0, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('maxWithdrawal bounds the amount, the fee not counted', async () => {
    const x = await funded(1000, { maxWithdrawal: 500, withdrawalFeeFixed: 100 });
    expectOk(await post(x, { amount: 500 }), 201);
  });
});

describe('processing results and the simulator (docs/contract/withdrawals.md#withdrawal-states, docs/contract/operator.md#simulator)', () => {
  it('FAILED returns amount + fee to available; failedReason set; driven twice: INVALID_STATE; unknown: 404', async () => {
    const x = await funded(5000, { withdrawalFeeFixed: 75 });
    const w = expectOk(await post(x, { amount: 1000 }), 201);
    const failed = expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/fail`, { reason: 'Conta inexistente' }));
    expect(failed).toMatchObject({ status: 'FAILED', failedReason: 'Conta inexistente', completedAt: null, end2endId: null });
    expect(await balance(t, x)).toEqual({ available: 5000, pending: 0, blocked: 0 });
    const [item] = expectOk(await t.request('GET', '/withdrawals?status=FAILED', { key: x.key }));
    expect(item).toMatchObject({ id: w.id, status: 'FAILED', failedReason: 'Conta inexistente' });
    expectError(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/fail`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/complete`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', '/admin/simulator/withdrawals/wd_nope/complete'), 404, 'NOT_FOUND');
    await t.assertLedger();
  });

  it('an EMAIL key at fail.test always fails, even when driven to complete', async () => {
    const x = await funded(5000);
    const w = expectOk(await post(x, { amount: 1000, pixKey: 'nobody@fail.test', pixKeyType: 'EMAIL' }), 201);
    const res = expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/complete`));
    expect(res).toMatchObject({ id: w.id, status: 'FAILED', completedAt: null, end2endId: null });
    expect(typeof res.failedReason).toBe('string');
    expect(await get(x, w.id)).toEqual(res);
    expect(await balance(t, x)).toEqual({ available: 5000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });
});

describe('payouts complete on their own (SIM_PAYOUT_DELAY_MS)', () => {
  it('COMPLETED after the delay; a fail.test key FAILED', async () => {
    const fast = await createTestContext({ SIM_PAYOUT_DELAY_MS: '50' });
    try {
      const x = await fast.merchant();
      await fund(fast, x, 5000);
      const ok = expectOk(await fast.request('POST', '/withdrawals', { key: x.key, body: { amount: 1000, ...email } }), 201);
      await eventually(async () => expectOk(await fast.request('GET', `/withdrawals/${ok.id}`, { key: x.key })).status === 'COMPLETED');
      const bad = expectOk(await fast.request('POST', '/withdrawals', { key: x.key, body: { amount: 1000, pixKey: 'x@fail.test', pixKeyType: 'EMAIL' } }), 201);
      const failed = await eventually(async () => {
        const w = expectOk(await fast.request('GET', `/withdrawals/${bad.id}`, { key: x.key }));
        return w.status === 'FAILED' && w;
      });
      expect(typeof failed.failedReason).toBe('string');
      expect(expectOk(await fast.request('GET', '/me/balance', { key: x.key }))).toEqual({ available: 4000, pending: 0, blocked: 0 });
      await fast.assertLedger();
    } finally {
      await fast.close();
    }
  });
});
