import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { balanceOf, CREATED_FIELDS, createWithdrawal, FULL_FIELDS, fundedMerchant, ledgerKinds } from './helpers.js';

// Payouts never settle on their own here, so a created withdrawal stays open for the whole file.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '600000', WEBHOOK_ALLOW_PRIVATE: 'false' }); });
afterAll(async () => { await t?.close(); });

const VALID_CPF = '52998224725';
const VALID_CNPJ = '11222333000181';

async function expectError(res: { status: number; body: any }, status: number, error: string, message: string) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { error, message, success: false } });
}

describe('POST /withdrawals: field validation', () => {
  let key: string;
  beforeAll(async () => { key = (await fundedMerchant(t, 1_000_000)).key; });

  it.each([
    [{ amount: undefined }, 'amount: is required'],
    [{ amount: 49 }, 'amount: must be >= 50'],
    [{ amount: 100_000_001 }, 'amount: must be <= 100000000'],
    [{ amount: '1000' }, 'amount: must be an integer'],
    [{ amount: 10.5 }, 'amount: must be an integer'],
    [{ pixKey: undefined }, 'pixKey: is required'],
    [{ pixKey: '' }, 'pixKey: must have at least 1 character'],
    [{ pixKey: 'a'.repeat(141) }, 'pixKey: must have at most 140 characters'],
    [{ pixKeyType: undefined }, 'pixKeyType: is required'],
    [{ pixKeyType: 'PIX' }, 'pixKeyType: must be one of CPF, CNPJ, EMAIL, TELEFONE, CHAVE_ALEATORIA'],
    [{ pixKeyType: 'CPF', pixKey: '52998224724' }, 'pixKey: invalid CPF'],
    [{ pixKeyType: 'CPF', pixKey: '11111111111' }, 'pixKey: invalid CPF'],
    [{ pixKeyType: 'CPF', pixKey: '529.982.247-25' }, 'pixKey: invalid CPF'],
    [{ pixKeyType: 'CNPJ', pixKey: '11222333000182' }, 'pixKey: invalid CNPJ'],
    [{ pixKeyType: 'CNPJ', pixKey: VALID_CPF }, 'pixKey: invalid CNPJ'],
    [{ pixKeyType: 'EMAIL', pixKey: 'not-an-email' }, 'pixKey: must be a valid e-mail of at most 77 characters'],
    [{ pixKeyType: 'EMAIL', pixKey: `${'a'.repeat(70)}@example.com` }, 'pixKey: must be a valid e-mail of at most 77 characters'],
    [{ pixKeyType: 'TELEFONE', pixKey: '11987654321' }, 'pixKey: must be +55 followed by 10 or 11 digits'],
    [{ pixKeyType: 'TELEFONE', pixKey: '+551198765432100' }, 'pixKey: must be +55 followed by 10 or 11 digits'],
    [{ pixKeyType: 'CHAVE_ALEATORIA', pixKey: 'not-a-uuid' }, 'pixKey: must be a UUID'],
    [{ description: 'd'.repeat(141) }, 'description: must have at most 140 characters'],
    [{ description: 5 }, 'description: must be a string'],
    [{ taxId: '1'.repeat(19) }, 'taxId: must have at most 18 characters'],
    [{ taxId: '529.982.247-2X' }, 'taxId: has an invalid format'],
    [{ clientCallbackUrl: 'not a url' }, 'clientCallbackUrl: must be a valid URL'],
    [{ clientCallbackUrl: 'http://hooks.example.com/cb' }, 'clientCallbackUrl: must be an https URL'],
    [{ clientCallbackUrl: 'https://user:pw@hooks.example.com/cb' }, 'clientCallbackUrl: must not contain credentials'],
    [{ clientCallbackUrl: 'https://127.0.0.1/cb' }, 'clientCallbackUrl: must be a public address'],
    [{ clientCallbackUrl: 'https://10.1.2.3/cb' }, 'clientCallbackUrl: must be a public address'],
    [{ clientCallbackUrl: 'https://[::1]/cb' }, 'clientCallbackUrl: must be a public address'],
    [{ clientCallbackUrl: 'https://localhost/cb' }, 'clientCallbackUrl: must be a public address'],
    [{ clientCallbackUrl: 'https://169.254.169.254/latest' }, 'clientCallbackUrl: must be a public address'],
    [{ clientCallbackUrl: `https://hooks.example.com/${'a'.repeat(2030)}` }, 'clientCallbackUrl: must have at most 2048 characters'],
  ])('%j → VALIDATION_ERROR %s', async (fields, message) => {
    const res = await createWithdrawal(t, key, { amount: 1000, ...fields });
    await expectError(res, 400, 'VALIDATION_ERROR', message);
  });

  it('rejects a body that is not JSON and a missing body', async () => {
    const bad = await t.request('POST', '/withdrawals', { key, payload: '{"amount":', headers: { 'content-type': 'application/json' } });
    await expectError(bad, 400, 'VALIDATION_ERROR', 'body: invalid JSON');
    const none = await t.request('POST', '/withdrawals', { key });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe('VALIDATION_ERROR');
  });

  it('moved no money for any rejection', async () => {
    expect(await balanceOf(t, key)).toEqual({ available: 1_000_000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });
});

describe('POST /withdrawals: accepted', () => {
  it('answers 201 with the lean record and moves amount + fee from available to pending', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 150 });
    const res = await createWithdrawal(t, m.key, { amount: 2500 });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.error).toBeNull();
    const w = res.body.data;
    expect(Object.keys(w).sort()).toEqual(CREATED_FIELDS);
    expect(w).toMatchObject({ amount: 2500, fee: 150, status: 'PENDING', description: null });
    expect(w.id).toMatch(/^wd_[0-9A-Za-z]{22}$/);
    expect(w.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await balanceOf(t, m.key)).toEqual({ available: 7350, pending: 2650, blocked: 0 });
    expect(await ledgerKinds(t, w.id)).toEqual(['WITHDRAWAL_RESERVE']);
    await t.assertLedger();
  });

  it('GET /withdrawals/{id} shows the full record; keys of every type are accepted and EVP keys lower-cased', async () => {
    const cases = [
      { pixKeyType: 'CPF', pixKey: VALID_CPF, stored: VALID_CPF },
      { pixKeyType: 'CNPJ', pixKey: VALID_CNPJ, stored: VALID_CNPJ },
      { pixKeyType: 'EMAIL', pixKey: 'Maria.Silva@example.com', stored: 'Maria.Silva@example.com' },
      { pixKeyType: 'TELEFONE', pixKey: '+5511987654321', stored: '+5511987654321' },
      { pixKeyType: 'CHAVE_ALEATORIA', pixKey: '3F2504E0-4F89-11D3-9A0C-0305E82C3301', stored: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' },
    ];
    for (const c of cases) {
      const m = await fundedMerchant(t, 5000);
      const res = await createWithdrawal(t, m.key, {
        amount: 1000, pixKey: c.pixKey, pixKeyType: c.pixKeyType, description: 'Saque semanal', taxId: '529.982.247-25',
      });
      expect(res.status, res.raw).toBe(201);
      const got = await t.request('GET', `/withdrawals/${res.body.data.id}`, { key: m.key });
      expect(got.status).toBe(200);
      expect(Object.keys(got.body.data).sort()).toEqual(FULL_FIELDS);
      expect(got.body.data).toEqual({
        id: res.body.data.id, amount: 1000, fee: 0, status: expect.stringMatching(/^(PENDING|PROCESSING)$/),
        description: 'Saque semanal', createdAt: res.body.data.createdAt, completedAt: null, failedReason: null,
        pixKey: c.stored, pixKeyType: c.pixKeyType, taxId: '529.982.247-25', end2endId: null,
      });
    }
    await t.assertLedger();
  });

  it('accepts a callback URL whose host cannot be resolved here (delivery checks it again)', async () => {
    const m = await fundedMerchant(t, 5000);
    const res = await createWithdrawal(t, m.key, { amount: 1000, clientCallbackUrl: 'https://hooks.pixgate-test.invalid/cb' });
    expect(res.status, res.raw).toBe(201);
    await t.assertLedger();
  });

  it('another merchant\'s withdrawal and an unknown id are NOT_FOUND', async () => {
    const a = await fundedMerchant(t, 5000);
    const b = await t.merchant();
    const res = await createWithdrawal(t, a.key, { amount: 1000 });
    for (const id of [res.body.data.id, 'wd_doesnotexist']) {
      await expectError(await t.request('GET', `/withdrawals/${id}`, { key: b.key }), 404, 'NOT_FOUND', 'Withdrawal not found');
    }
  });
});

describe('POST /withdrawals: business rules in order', () => {
  it('withdrawals disabled → 403 FORBIDDEN, after field validation', async () => {
    const m = await fundedMerchant(t, 5000, { withdrawalsEnabled: false });
    await expectError(await createWithdrawal(t, m.key, { amount: 1000 }), 403, 'FORBIDDEN', 'Withdrawals are temporarily blocked for this merchant');
    await expectError(await createWithdrawal(t, m.key, { amount: 10 }), 400, 'VALIDATION_ERROR', 'amount: must be >= 50');
    expect(await balanceOf(t, m.key)).toEqual({ available: 5000, pending: 0, blocked: 0 });
  });

  it('one in progress → WITHDRAWAL_IN_PROGRESS, after disabled and before limit and balance', async () => {
    const m = await fundedMerchant(t, 5000, { maxWithdrawal: 2000 });
    expect((await createWithdrawal(t, m.key, { amount: 1000 })).status).toBe(201);
    const inProgress = ['WITHDRAWAL_IN_PROGRESS', 'Another withdrawal is already PENDING or PROCESSING for this merchant'] as const;
    await expectError(await createWithdrawal(t, m.key, { amount: 1000 }), 400, ...inProgress);
    // over the limit and over the balance: still "in progress" first
    await expectError(await createWithdrawal(t, m.key, { amount: 900_000 }), 400, ...inProgress);
    await expectError(await createWithdrawal(t, m.key, { amount: 49 }), 400, 'VALIDATION_ERROR', 'amount: must be >= 50');
    await t.admin('PATCH', `/admin/merchants/${m.id}`, { withdrawalsEnabled: false });
    await expectError(await createWithdrawal(t, m.key, { amount: 1000 }), 403, 'FORBIDDEN', 'Withdrawals are temporarily blocked for this merchant');
    expect(await balanceOf(t, m.key)).toEqual({ available: 4000, pending: 1000, blocked: 0 });
    await t.assertLedger();
  });

  it('over maxWithdrawal → VALIDATION_ERROR naming the limit, before balance; the fee does not count', async () => {
    const m = await fundedMerchant(t, 1100, { maxWithdrawal: 1000, withdrawalFeeFixed: 100 });
    await expectError(await createWithdrawal(t, m.key, { amount: 1001 }), 400, 'VALIDATION_ERROR', 'amount: must be <= 1000');
    await expectError(await createWithdrawal(t, m.key, { amount: 5_000_000 }), 400, 'VALIDATION_ERROR', 'amount: must be <= 1000');
    const ok = await createWithdrawal(t, m.key, { amount: 1000 });
    expect(ok.status, ok.raw).toBe(201);
    expect(ok.body.data).toMatchObject({ amount: 1000, fee: 100 });
    expect(await balanceOf(t, m.key)).toEqual({ available: 0, pending: 1100, blocked: 0 });
    await t.assertLedger();
  });

  it('available below amount + fee → INSUFFICIENT_BALANCE naming the merchant; exactly enough passes', async () => {
    const m = await fundedMerchant(t, 1099, { withdrawalFeeFixed: 100 });
    await expectError(await createWithdrawal(t, m.key, { amount: 1000 }), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${m.id}`);
    expect(await balanceOf(t, m.key)).toEqual({ available: 1099, pending: 0, blocked: 0 });
    expect((await createWithdrawal(t, m.key, { amount: 999 })).status).toBe(201);
    expect(await balanceOf(t, m.key)).toEqual({ available: 0, pending: 1099, blocked: 0 });
    const broke = await fundedMerchant(t, 0);
    await expectError(await createWithdrawal(t, broke.key, { amount: 50 }), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${broke.id}`);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM withdrawals WHERE merchant_id = $1', [broke.id]);
    expect(rows[0].n).toBe(0);
    await t.assertLedger();
  });
});

describe('POST /withdrawals: Idempotency-Key', () => {
  it('replays the created withdrawal without creating or reserving again', async () => {
    const m = await fundedMerchant(t, 5000, { withdrawalFeeFixed: 10 });
    const headers = { 'idempotency-key': 'wd-create-1' };
    const first = await createWithdrawal(t, m.key, { amount: 1000, pixKey: 'a1b2c3d4-0000-4000-8000-000000000001' }, headers);
    const again = await createWithdrawal(t, m.key, { amount: 1000, pixKey: 'a1b2c3d4-0000-4000-8000-000000000001' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(t, m.key)).toEqual({ available: 3990, pending: 1010, blocked: 0 });
    await t.assertLedger();
  });

  it('stores business rejections (INSUFFICIENT_BALANCE) but not validation errors', async () => {
    const m = await fundedMerchant(t, 500);
    const body = { amount: 1000, pixKey: 'a1b2c3d4-0000-4000-8000-000000000002' };
    const h1 = { 'idempotency-key': 'wd-poor' };
    await expectError(await createWithdrawal(t, m.key, body, h1), 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${m.id}`);
    const replay = await createWithdrawal(t, m.key, body, h1);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.error).toBe('INSUFFICIENT_BALANCE');
    const h2 = { 'idempotency-key': 'wd-invalid' };
    await expectError(await createWithdrawal(t, m.key, { ...body, amount: 10 }, h2), 400, 'VALIDATION_ERROR', 'amount: must be >= 50');
    const fixed = await createWithdrawal(t, m.key, { ...body, amount: 500 }, h2);
    expect(fixed.status, fixed.raw).toBe(201);
    await t.assertLedger();
  });
});
