import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { balanceOf, createWithdrawal, fundedMerchant } from './helpers.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '600000' }); });
afterAll(async () => { await t?.close(); });

const countOpen = async (merchantId: string) => {
  const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM withdrawals WHERE merchant_id = $1', [merchantId]);
  return rows[0].n as number;
};

function tally(replies: Array<{ status: number; body: any }>) {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const k = `${r.status} ${r.body.error ?? 'created'}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

describe('one withdrawal at a time, under concurrency', () => {
  it('20 simultaneous requests from one merchant create exactly one; the rest get WITHDRAWAL_IN_PROGRESS', async () => {
    const m = await fundedMerchant(t, 1_000_000, { withdrawalFeeFixed: 100 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => createWithdrawal(t, m.key, { amount: 1000 })));
    expect(tally(replies)).toEqual({ '201 created': 1, '400 WITHDRAWAL_IN_PROGRESS': 19 });
    expect(await countOpen(m.id)).toBe(1);
    expect(await balanceOf(t, m.key)).toEqual({ available: 998_900, pending: 1100, blocked: 0 });
    await t.assertLedger();
  });

  it('when the balance covers none of them, all get INSUFFICIENT_BALANCE and nothing is created', async () => {
    const m = await fundedMerchant(t, 999);
    const replies = await Promise.all(Array.from({ length: 20 }, () => createWithdrawal(t, m.key, { amount: 1000 })));
    expect(tally(replies)).toEqual({ '400 INSUFFICIENT_BALANCE': 20 });
    expect(await countOpen(m.id)).toBe(0);
    expect(await balanceOf(t, m.key)).toEqual({ available: 999, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('amounts that race: the one that wins is the only one created; no 500, no double reservation', async () => {
    const m = await fundedMerchant(t, 5000);
    // Half of them are too big for the balance: each answer is IN_PROGRESS or INSUFFICIENT_BALANCE, never a 5xx.
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => createWithdrawal(t, m.key, { amount: i % 2 ? 6000 : 1000 })));
    const counts = tally(replies);
    expect(counts['201 created']).toBe(1);
    expect(Object.keys(counts).every((k) => ['201 created', '400 WITHDRAWAL_IN_PROGRESS', '400 INSUFFICIENT_BALANCE'].includes(k))).toBe(true);
    expect(await countOpen(m.id)).toBe(1);
    expect(await balanceOf(t, m.key)).toEqual({ available: 4000, pending: 1000, blocked: 0 });
    await t.assertLedger();
  });

  it('merchants do not block each other', async () => {
    const merchants = await Promise.all(Array.from({ length: 5 }, () => fundedMerchant(t, 2000)));
    const replies = await Promise.all(merchants.flatMap((m) => [1, 2, 3].map(() => createWithdrawal(t, m.key, { amount: 500 }))));
    expect(tally(replies)).toEqual({ '201 created': 5, '400 WITHDRAWAL_IN_PROGRESS': 10 });
    for (const m of merchants) expect(await balanceOf(t, m.key)).toEqual({ available: 1500, pending: 500, blocked: 0 });
    await t.assertLedger();
  });

  it('the same Idempotency-Key sent 10 times at once creates one withdrawal', async () => {
    const m = await fundedMerchant(t, 5000);
    const body = { amount: 1000, pixKey: 'b2c3d4e5-0000-4000-8000-000000000001', pixKeyType: 'CHAVE_ALEATORIA' };
    const replies = await Promise.all(Array.from({ length: 10 }, () => createWithdrawal(t, m.key, body, { 'idempotency-key': 'same-key' })));
    for (const r of replies) expect([201, 409]).toContain(r.status);
    const created = new Set(replies.filter((r) => r.status === 201).map((r) => r.body.data.id));
    expect(created.size).toBe(1);
    expect(await countOpen(m.id)).toBe(1);
    expect(await balanceOf(t, m.key)).toEqual({ available: 4000, pending: 1000, blocked: 0 });
    await t.assertLedger();
  });
});
