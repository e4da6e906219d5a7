import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { withTransaction } from '../../src/platform/db.js';
import { merchantAccount, post, PSP_CLEARING } from '../../src/ledger/ledger.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const nameOf = async (kyc: Record<string, unknown>, userName = 'user-name') => {
  const m = await t.merchant({ userName, kyc });
  const res = await t.request('GET', '/me/store', { key: m.key });
  expect(res.status).toBe(200);
  return res.body.data.name;
};

describe('GET /me/store name', () => {
  it('prefers trade name, then legal name, then full name, then user name', async () => {
    expect(await nameOf({ status: 'APPROVED', tradeName: 'Trade', legalName: 'Legal', fullName: 'Full' })).toBe('Trade');
    expect(await nameOf({ status: 'APPROVED', legalName: 'Legal', fullName: 'Full' })).toBe('Legal');
    expect(await nameOf({ status: 'APPROVED', fullName: 'Full' })).toBe('Full');
    expect(await nameOf({ status: 'APPROVED' })).toBe('user-name');
  });
  it('is null while KYC is not approved', async () => {
    expect(await nameOf({ status: 'PENDING', tradeName: 'Trade' })).toBeNull();
    expect(await nameOf({ status: 'REJECTED', tradeName: 'Trade' })).toBeNull();
  });
  it('follows KYC approval', async () => {
    const m = await t.merchant({ kyc: { status: 'PENDING', legalName: 'Legal Ltda' } });
    expect((await t.request('GET', '/me/store', { key: m.key })).body.data.name).toBeNull();
    await t.admin('PATCH', `/admin/merchants/${m.id}`, { kyc: { status: 'APPROVED' } });
    expect((await t.request('GET', '/me/store', { key: m.key })).body.data.name).toBe('Legal Ltda');
  });
});

describe('balances', () => {
  it('shows the store and the balance in cents with the exact field sets', async () => {
    const m = await t.merchant();
    await withTransaction(t.pool, (tx) => post(tx, {
      kind: 'TEST_FUNDING', reference: 'test',
      entries: [{ account: PSP_CLEARING, amount: -12345 }, { account: merchantAccount(m.id, 'available'), amount: 12345 }],
    }));
    const store = await t.request('GET', '/me/store', { key: m.key });
    expect(store.body).toEqual({
      data: { id: m.id, name: 'Loja Teste', balance: { available: 12345, pending: 0, blocked: 0 } }, error: null, success: true,
    });
    const balance = await t.request('GET', '/me/balance', { key: m.key });
    expect(balance.body).toEqual({ data: { available: 12345, pending: 0, blocked: 0 }, error: null, success: true });
    await t.assertLedger();
  });
});
