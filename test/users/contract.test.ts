import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('GET /me/contract', () => {
  it('every role and an API key read the merchant\'s own fees and limits; /me/store keeps its field set', async () => {
    const m = await t.merchant({ chargeFeeFixed: 50, chargeFeeBps: 120, withdrawalFeeFixed: 375, maxWithdrawal: 900000, withdrawalsEnabled: false, minTicket: 500 });
    const expected = { chargeFeeFixed: 50, chargeFeeBps: 120, withdrawalFeeFixed: 375, maxWithdrawal: 900000, withdrawalsEnabled: false, minTicket: 500, maxTicket: expect.any(Number) };
    const callers = [m.key];
    for (const role of ['OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER']) callers.push((await t.user(m.id, role)).token);
    for (const key of callers) {
      const res = await t.request('GET', '/me/contract', { key });
      expect(res.status, res.raw).toBe(200);
      expect(res.body).toEqual({ data: expected, error: null, success: true });
    }
    expect(Object.keys((await t.request('GET', '/me/store', { key: m.key })).body.data).sort()).toEqual(['balance', 'id', 'name']);
  });

  it('follows an operator change at once, shows only the caller\'s merchant, and needs auth', async () => {
    const a = await t.merchant({ withdrawalFeeFixed: 100 });
    const b = await t.merchant({ withdrawalFeeFixed: 200 });
    expect((await t.request('GET', '/me/contract', { key: b.key })).body.data.withdrawalFeeFixed).toBe(200);
    expect((await t.admin('PATCH', `/admin/merchants/${a.id}`, { withdrawalFeeFixed: 0 })).status).toBe(200);
    expect((await t.request('GET', '/me/contract', { key: a.key })).body.data.withdrawalFeeFixed).toBe(0);
    const anon = await t.request('GET', '/me/contract');
    expect([anon.status, anon.body.error]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('is in the OpenAPI document with its schema', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const schema = doc.paths['/me/contract'].get.responses['200'].content['application/json'].schema;
    expect(JSON.stringify(schema)).toContain('withdrawalFeeFixed');
  });
});
