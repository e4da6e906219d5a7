import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { createWithdrawal, fundedMerchant } from './helpers.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('GET /withdrawals/quote?amount=', () => {
  it('answers the fee a withdrawal of that amount would be charged, the total and the available balance; the withdrawal then stores that fee', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 150 });
    const quote = await t.request('GET', '/withdrawals/quote?amount=2000', { key: m.key });
    expect(quote.status).toBe(200);
    expect(quote.body.data).toEqual({ amount: 2000, fee: 150, total: 2150, available: 10_000 });

    const created = await createWithdrawal(t, m.key, { amount: 2000 });
    expect(created.status).toBe(201);
    expect(created.body.data.fee).toBe(quote.body.data.fee);
    const after = await t.request('GET', '/withdrawals/quote?amount=2000', { key: m.key });
    expect(after.body.data.available).toBe(10_000 - 2150);
    await t.assertLedger();
  });

  it('takes the amounts a withdrawal takes', async () => {
    const m = await fundedMerchant(t, 0);
    for (const amount of ['', '49', '10.5', 'abc']) {
      const res = await t.request('GET', `/withdrawals/quote?amount=${amount}`, { key: m.key });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(/^amount: /);
    }
    const zero = await t.request('GET', '/withdrawals/quote?amount=50', { key: m.key });
    expect(zero.body.data).toEqual({ amount: 50, fee: 0, total: 50, available: 0 });
  });
});
