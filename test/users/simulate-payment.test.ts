import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoMerchant } from '../../src/admin/demo-merchant.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startFakePsp } from '../providers/fake-psp.js';
import { expectError, login } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('POST /transparents/simulate-payment?id= (simulator)', () => {
  it('pays the merchant\'s own PENDING charge as the operator\'s simulator pay does, and answers the charge', async () => {
    const m = await t.merchant({ chargeFeeFixed: 50 });
    const u = await t.user(m.id, 'FINANCE');
    const charge = (await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 } })).body.data;
    const paid = await t.request('POST', `/transparents/simulate-payment?id=${charge.id}`, { key: u.token });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ id: charge.id, status: 'PAID', amount: 1000, fee: 50, netAmount: 950, paidAt: expect.any(String), end2endId: expect.stringMatching(/^E/) });
    expect(paid.body.data.imageBase64).toMatch(/^data:image\/png;base64,/);
    expect((await t.request('GET', '/me/balance', { key: m.key })).body.data.available + (await t.request('GET', '/me/balance', { key: m.key })).body.data.pending).toBe(950);
    // Not PENDING any more: INVALID_STATE, as /admin/simulator/charges/{id}/pay answers.
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${charge.id}`, { key: m.key }), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', `/admin/simulator/charges/${charge.id}/pay`), 400, 'INVALID_STATE');
    await t.assertLedger();
  });

  it('another merchant\'s charge and an unknown id are 404; a VIEWER is 403; id is required', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    const charge = (await t.request('POST', '/transparents/create', { key: b.key, body: { method: 'PIX', amount: 1000 } })).body.data;
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${charge.id}`, { key: a.key }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/transparents/simulate-payment?id=chg_unknown', { key: a.key }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/transparents/simulate-payment', { key: a.key }), 400, 'VALIDATION_ERROR', 'id: is required');
    const viewer = await t.user(b.id, 'VIEWER');
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${charge.id}`, { key: viewer.token }), 403, 'FORBIDDEN', /VIEWER/);
    expect((await t.request('GET', `/transparents/check?id=${charge.id}`, { key: b.key })).body.data.status).toBe('PENDING');
  });
});

describe('Idempotency-Key on POST /transparents/simulate-payment (docs/contract/http.md#idempotency)', () => {
  it('a replay with the same key returns the first answer; another query under the key is IDEMPOTENCY_CONFLICT', async () => {
    const m = await t.merchant();
    const create = () => t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 } });
    const [c1, c2] = [(await create()).body.data, (await create()).body.data];
    const headers = { 'idempotency-key': 'sim-pay-1' };
    const first = await t.request('POST', `/transparents/simulate-payment?id=${c1.id}`, { key: m.key, headers });
    expect(first.status).toBe(200);
    const again = await t.request('POST', `/transparents/simulate-payment?id=${c1.id}`, { key: m.key, headers });
    // Without the key the second pay is INVALID_STATE (the charge is PAID); with it, the first answer.
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${c2.id}`, { key: m.key, headers }), 409, 'IDEMPOTENCY_CONFLICT');
    expect((await t.request('GET', `/transparents/check?id=${c2.id}`, { key: m.key })).body.data.status).toBe('PENDING');
    expect((await t.request('GET', '/me/balance', { key: m.key })).body.data.pending + (await t.request('GET', '/me/balance', { key: m.key })).body.data.available).toBe(first.body.data.netAmount);
    await t.assertLedger();
  });

  it('a business rejection is stored and replayed too', async () => {
    const m = await t.merchant();
    const c = (await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 } })).body.data;
    await t.request('POST', `/transparents/simulate-payment?id=${c.id}`, { key: m.key });
    const headers = { 'idempotency-key': 'sim-pay-2' };
    const first = await t.request('POST', `/transparents/simulate-payment?id=${c.id}`, { key: m.key, headers });
    expectError(first, 400, 'INVALID_STATE');
    const again = await t.request('POST', `/transparents/simulate-payment?id=${c.id}`, { key: m.key, headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('with a real provider (api-pix)', () => {
  let psp: Awaited<ReturnType<typeof startFakePsp>>;
  let real: TestContext;
  beforeAll(async () => {
    psp = await startFakePsp();
    real = await createTestContext(psp.env, { worker: false });
  });
  afterAll(async () => {
    await real?.close();
    await psp?.close();
  });

  it('the route does not exist: 404', async () => {
    const m = await real.merchant();
    expectError(await real.request('POST', '/transparents/simulate-payment?id=chg_x', { key: m.key }), 404, 'NOT_FOUND', 'Route not found');
  });
});

describe('the demo owner', () => {
  it('is seeded once, with the demo merchant, and logs in with the generated password', async () => {
    const fresh = await createTestContext({}, { worker: false });
    try {
      const seeded = await seedDemoMerchant(fresh.pool);
      expect(seeded?.owner.email).toBe('demo@pixgate.local');
      expect(seeded!.owner.password.length).toBeGreaterThanOrEqual(12);
      expect(await seedDemoMerchant(fresh.pool)).toBeNull();
      const res = await login(fresh, { email: 'demo@pixgate.local', password: seeded!.owner.password });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ user: { role: 'OWNER', name: 'Demo Owner' }, merchant: { id: seeded!.merchantId, name: 'Pixgate Demo Store' } });
      const { rows } = await fresh.pool.query('SELECT count(*)::int AS n FROM users');
      expect(rows[0].n).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
