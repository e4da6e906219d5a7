// docs/contract/http.md#idempotency: Idempotency-Key on every merchant POST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { createCharge, expectError, expectOk, fund, pay, type M } from './support.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '300000', SIM_REFUND_DELAY_MS: '300000' });
});
afterAll(() => t?.close());

let n = 0;
const newKey = () => `conf-${++n}-${Date.now()}`;
const post = (m: M, url: string, key: string, body?: unknown, payload?: string) =>
  t.request('POST', url, { key: m.key, body, payload, headers: { 'idempotency-key': key, ...(payload ? { 'content-type': 'application/json' } : {}) } });
const count = async (m: M, url: string) => (expectOk(await t.request('GET', `${url}?limit=100`, { key: m.key })) as unknown[]).length;

describe('replay of the first answer, one effect', () => {
  const cases: Array<[string, string, (m: M) => Promise<unknown>, number, string]> = [
    ['POST /customers', '/customers', async () => ({ email: 'a@example.com', name: 'A' }), 201, '/customers'],
    ['POST /transparents/create', '/transparents/create', async () => ({ method: 'PIX', amount: 1500, description: 'x' }), 201, '/transparents/list'],
    ['POST /withdrawals', '/withdrawals', async (m) => {
      await fund(t, m, 5000);
      return { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL' };
    }, 201, '/withdrawals'],
    ['POST /webhooks', '/webhooks', async () => ({ url: 'https://93.184.216.34/hook', events: ['CHARGE_PAID'] }), 201, '/webhooks'],
  ];
  it.each(cases)('%s: same key and request → same status and body; one resource', async (_n, url, setup, status, listUrl) => {
    const m = await t.merchant();
    const body = await setup(m);
    const before = await count(m, listUrl);
    const key = newKey();
    const first = await post(m, url, key, body);
    expect(first.status).toBe(status);
    // The same JSON with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body as object).reverse());
    const second = await post(m, url, key, reordered);
    expect({ status: second.status, body: second.body }).toEqual({ status: first.status, body: first.body });
    expect(await count(m, listUrl)).toBe(before + 1);
    expectError(await post(m, url, key, { ...(body as object), extra: 1 }), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await post(m, '/customers', key, { email: 'z@example.com' }), 409, 'IDEMPOTENCY_CONFLICT');
  });

  it('POST /transparents/refund: the same key replays the refund; another query with the key is a conflict', async () => {
    const m = await t.merchant();
    await fund(t, m, 1000);
    const c = await createCharge(t, m, { amount: 2000 });
    await pay(t, c.id);
    const key = newKey();
    const first = await post(m, `/transparents/refund?id=${c.id}`, key);
    expectOk(first);
    const second = await post(m, `/transparents/refund?id=${c.id}`, key);
    expect({ status: second.status, body: second.body }).toEqual({ status: 200, body: first.body });
    expectError(await post(m, '/transparents/refund?id=chg_other', key), 409, 'IDEMPOTENCY_CONFLICT');
    expect(expectOk(await t.request('GET', '/me/balance', { key: m.key }))).toEqual({ available: 1000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('1000.0 and 1000 are the same request', async () => {
    const m = await t.merchant();
    const key = newKey();
    const first = await post(m, '/transparents/create', key, undefined, '{"method":"PIX","amount":1000}');
    const second = await post(m, '/transparents/create', key, undefined, '{"method":"PIX","amount":1000.0}');
    expect({ status: second.status, body: second.body }).toEqual({ status: 201, body: first.body });
  });

  it('a replayed POST /webhooks returns the secret again; once the endpoint is deleted, NOT_FOUND', async () => {
    const m = await t.merchant();
    const key = newKey();
    const body = { url: 'https://93.184.216.34/replay', events: ['CHARGE_PAID'] };
    const first = expectOk(await post(m, '/webhooks', key, body), 201);
    expect(expectOk(await post(m, '/webhooks', key, body), 201)).toEqual(first);
    expectOk(await t.request('DELETE', `/webhooks/${first.id}`, { key: m.key }));
    expectError(await post(m, '/webhooks', key, body), 404, 'NOT_FOUND');
  });

  it('keys are per merchant', async () => {
    const [a, b] = [await t.merchant(), await t.merchant()];
    const key = newKey();
    const x = expectOk(await post(a, '/customers', key, { email: 'a@example.com' }), 201);
    const y = expectOk(await post(b, '/customers', key, { email: 'b@example.com' }), 201);
    expect(x.id).not.toBe(y.id);
  });

  it('concurrent duplicates: one effect; the others replay it or get IDEMPOTENCY_CONFLICT', async () => {
    const m = await t.merchant();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(m, '/customers', key, { email: 'same@example.com' })));
    for (const a of answers) {
      if (a.status === 409) expectError(a, 409, 'IDEMPOTENCY_CONFLICT');
      else expect(a.status).toBe(201);
    }
    expect(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.data.id)).size).toBe(1);
    expect(await count(m, '/customers')).toBe(1);
  });
});

describe('what is stored (docs/contract/http.md#idempotency)', () => {
  it('VALIDATION_ERROR is not stored: a corrected retry with the same key works', async () => {
    const m = await t.merchant();
    const key = newKey();
    expectError(await post(m, '/customers', key, { email: 'bad' }), 400, 'VALIDATION_ERROR');
    expectOk(await post(m, '/customers', key, { email: 'good@example.com' }), 201);
    const k2 = newKey();
    expectError(await post(m, '/transparents/create', k2, { method: 'PIX', amount: 1000, customerId: 'cust_nope' }), 400, 'VALIDATION_ERROR');
    expectOk(await post(m, '/transparents/create', k2, { method: 'PIX', amount: 1000 }), 201);
    const k3 = newKey();
    const limited = await t.merchant({ maxWithdrawal: 100 });
    await fund(t, limited, 1000);
    expectError(await post(limited, '/withdrawals', k3, { amount: 200, pixKey: 'a@example.com', pixKeyType: 'EMAIL' }), 400, 'VALIDATION_ERROR', 'amount: must be <= 100');
    expectOk(await t.admin('PATCH', `/admin/merchants/${limited.id}`, { maxWithdrawal: 1000 }));
    expectOk(await post(limited, '/withdrawals', k3, { amount: 200, pixKey: 'a@example.com', pixKeyType: 'EMAIL' }), 201);
  });

  it('FORBIDDEN is not stored (withdrawals disabled, KYC not approved)', async () => {
    const m = await t.merchant({ withdrawalsEnabled: false });
    await fund(t, m, 1000);
    const key = newKey();
    const body = { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL' };
    expectError(await post(m, '/withdrawals', key, body), 403, 'FORBIDDEN', 'Withdrawals are temporarily blocked for this merchant');
    expectOk(await t.admin('PATCH', `/admin/merchants/${m.id}`, { withdrawalsEnabled: true }));
    expectOk(await post(m, '/withdrawals', key, body), 201);
    const p = await t.merchant({ kyc: { status: 'PENDING' } });
    const k2 = newKey();
    expectError(await post(p, '/transparents/create', k2, { method: 'PIX', amount: 1000 }), 403, 'FORBIDDEN');
    expectOk(await t.admin('PATCH', `/admin/merchants/${p.id}`, { kyc: { status: 'APPROVED' } }));
    expectOk(await post(p, '/transparents/create', k2, { method: 'PIX', amount: 1000 }), 201);
  });

  it('business rejections are stored and replayed even after the state changed', async () => {
    const m = await t.merchant();
    const wd = { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL' };
    const kBal = newKey();
    const short = await post(m, '/withdrawals', kBal, wd);
    expectError(short, 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${m.id}`);
    await fund(t, m, 5000);
    expect((await post(m, '/withdrawals', kBal, wd)).body).toEqual(short.body);

    const running = expectOk(await t.request('POST', '/withdrawals', { key: m.key, body: wd }), 201);
    const kBusy = newKey();
    const busy = await post(m, '/withdrawals', kBusy, wd);
    expectError(busy, 400, 'WITHDRAWAL_IN_PROGRESS');
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${running.id}/complete`));
    const replay = await post(m, '/withdrawals', kBusy, wd);
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 400, body: busy.body });

    const c = await createCharge(t, m);
    const kState = newKey();
    const invalid = await post(m, `/transparents/refund?id=${c.id}`, kState);
    expectError(invalid, 400, 'INVALID_STATE');
    await pay(t, c.id);
    expect((await post(m, `/transparents/refund?id=${c.id}`, kState)).body).toEqual(invalid.body);

    const kMissing = newKey();
    expectError(await post(m, '/transparents/refund?id=chg_nope', kMissing), 404, 'NOT_FOUND');
    expectError(await post(m, '/transparents/refund?id=chg_nope', kMissing), 404, 'NOT_FOUND');

    const kRefundShort = newKey();
    const poor = await t.merchant({ chargeFeeFixed: 10 });
    const pc = await createCharge(t, poor);
    await pay(t, pc.id);
    const refShort = await post(poor, `/transparents/refund?id=${pc.id}`, kRefundShort);
    expectError(refShort, 400, 'INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${poor.id}`);
    await fund(t, poor, 1000);
    expect((await post(poor, `/transparents/refund?id=${pc.id}`, kRefundShort)).body).toEqual(refShort.body);

    const kConflict = newKey();
    expectOk(await t.request('POST', '/customers', { key: m.key, body: { email: 'a@example.com', taxId: '52998224725' } }), 201);
    expectError(await post(m, '/customers', kConflict, { email: 'b@example.com', taxId: '52998224725' }), 409, 'CONFLICT');
    expectError(await post(m, '/customers', kConflict, { email: 'b@example.com', taxId: '52998224725' }), 409, 'CONFLICT');
    await t.assertLedger();
  });
});

describe('the header', () => {
  it('1 to 255 printable ASCII characters, else VALIDATION_ERROR (nothing done)', async () => {
    const m = await t.merchant();
    for (const bad of ['x'.repeat(256), 'tab\there', 'ção']) {
      const res = await t.request('POST', '/customers', { key: m.key, body: { email: 'a@example.com' }, headers: { 'idempotency-key': bad } });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message.startsWith('Idempotency-Key: ')).toBe(true);
    }
    expect(await count(m, '/customers')).toBe(0);
    expectOk(await post(m, '/customers', 'k'.repeat(255), { email: 'a@example.com' }), 201);
    expectOk(await post(m, '/customers', ' ~!', { email: 'b@example.com' }), 201);
  });

  it('/admin ignores it', async () => {
    const headers = { authorization: 'Bearer test-admin-token-of-at-least-32-characters', 'idempotency-key': newKey() };
    const a = expectOk(await t.request('POST', '/admin/merchants', { body: { userName: 'x', email: 'x@example.com' }, headers }), 201);
    const b = expectOk(await t.request('POST', '/admin/merchants', { body: { userName: 'x', email: 'x@example.com' }, headers }), 201);
    expect(a.id).not.toBe(b.id);
  });
});
