import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const expectCode = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: code, message: expect.any(String), success: false });
};

describe('merchant API keys', () => {
  it('refuses a missing, malformed or unknown key with 401', async () => {
    expectCode(await t.request('GET', '/me/store'), 401, 'UNAUTHORIZED');
    for (const authorization of ['pxg_abc', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer pxg_short', 'bearer x y']) {
      expectCode(await t.request('GET', '/me/store', { headers: { authorization } }), 401, 'UNAUTHORIZED');
    }
    expectCode(await t.request('GET', '/me/store', { key: 'pxg_' + 'A'.repeat(40) }), 401, 'UNAUTHORIZED');
  });

  it('stores only the SHA-256 of a key and its last 4 characters', async () => {
    const m = await t.merchant();
    const { rows } = await t.pool.query('SELECT key_hash, last4 FROM api_keys WHERE id = $1', [m.keyId]);
    expect(rows[0].last4).toBe(m.key.slice(-4));
    expect(Buffer.from(rows[0].key_hash).toString('hex')).toBe((await import('node:crypto')).createHash('sha256').update(m.key).digest('hex'));
    expect(m.key).toMatch(/^pxg_[0-9A-Za-z]{40}$/);
    const dump = await t.pool.query(`SELECT * FROM api_keys`);
    expect(JSON.stringify(dump.rows)).not.toContain(m.key);
  });

  it('refuses a revoked key at once', async () => {
    const m = await t.merchant();
    expect((await t.request('GET', '/me/balance', { key: m.key })).status).toBe(200);
    const revoked = await t.admin('DELETE', `/admin/api-keys/${m.keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: m.keyId, merchantId: m.id, revokedAt: expect.any(String) });
    expectCode(await t.request('GET', '/me/balance', { key: m.key }), 401, 'UNAUTHORIZED');
  });

  it('keeps other keys of the merchant working after one is revoked', async () => {
    const m = await t.merchant();
    const second = await t.admin('POST', `/admin/merchants/${m.id}/api-keys`);
    expect(second.status).toBe(201);
    expect(Object.keys(second.body.data).sort()).toEqual(['createdAt', 'createdBy', 'id', 'key', 'last4', 'role']);
    await t.admin('DELETE', `/admin/api-keys/${m.keyId}`);
    expect((await t.request('GET', '/me/store', { key: second.body.data.key })).status).toBe(200);
  });

  it('answers 403 FORBIDDEN everywhere for a suspended merchant, and 200 again once reinstated', async () => {
    const m = await t.merchant();
    expect((await t.admin('PATCH', `/admin/merchants/${m.id}`, { suspended: true })).status).toBe(200);
    expectCode(await t.request('GET', '/me/store', { key: m.key }), 403, 'FORBIDDEN');
    expectCode(await t.request('GET', '/me/balance', { key: m.key }), 403, 'FORBIDDEN');
    await t.admin('PATCH', `/admin/merchants/${m.id}`, { suspended: false });
    expect((await t.request('GET', '/me/store', { key: m.key })).status).toBe(200);
  });
});

describe('operator API', () => {
  it('refuses a merchant key, a wrong token and no token with 401', async () => {
    const m = await t.merchant();
    expectCode(await t.request('GET', '/admin/merchants', { key: m.key }), 401, 'UNAUTHORIZED');
    expectCode(await t.request('GET', '/admin/merchants', { headers: { authorization: 'Bearer wrong' } }), 401, 'UNAUTHORIZED');
    expectCode(await t.request('GET', '/admin/merchants'), 401, 'UNAUTHORIZED');
  });

  it('refuses the admin token on merchant routes', async () => {
    expectCode(await t.request('GET', '/me/store', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }), 401, 'UNAUTHORIZED');
  });

  it('creates a merchant with contract defaults and shows it with its balance', async () => {
    const res = await t.admin('POST', '/admin/merchants', { userName: 'ana', email: 'ana@example.com' });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toMatchObject({
      userName: 'ana', email: 'ana@example.com', city: 'SAO PAULO', pixKey: null, suspended: false,
      minTicket: 100, maxTicket: 100000000, maxWithdrawal: 100000000, withdrawalsEnabled: true,
      chargeFeeFixed: 0, chargeFeeBps: 0, withdrawalFeeFixed: 0,
      kyc: { status: 'PENDING', tradeName: null, legalName: null, fullName: null, taxId: null },
      balance: { available: 0, pending: 0, blocked: 0 },
    });
    expect(d.id).toMatch(/^mer_[0-9A-Za-z]+$/);
    expect(d.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const got = await t.admin('GET', `/admin/merchants/${d.id}`);
    expect(got.body.data).toEqual(d);
  });

  it('stores a random PIX key lower-case', async () => {
    const res = await t.admin('POST', '/admin/merchants', {
      userName: 'x', email: 'x@example.com', pixKey: { type: 'CHAVE_ALEATORIA', key: '123E4567-E89B-12D3-A456-426614174000' },
    });
    expect(res.body.data.pixKey).toEqual({ type: 'CHAVE_ALEATORIA', key: '123e4567-e89b-12d3-a456-426614174000' });
  });
});
