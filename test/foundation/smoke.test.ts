import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

describe('smoke', () => {
  it('serves the store of a new merchant', async () => {
    const m = await t.merchant();
    const res = await t.request('GET', '/me/store', { key: m.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: m.id, name: 'Loja Teste', balance: { available: 0, pending: 0, blocked: 0 } }, error: null, success: true });
    await t.assertLedger();
  });
});
