import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { charge, fund } from '../support/ledger.js';
import { withTransaction } from '../../src/platform/db.js';
import { FEE_REVENUE, getBalance, lockBalance, merchantAccount, post } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';

// Credits to a balance row another transaction holds are left pending (migration 0006) instead of waiting.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const credit = (merchantId: string, amount: number) => fund(t.pool, merchantId, amount);
const debit = (merchantId: string, amount: number) => charge(t.pool, merchantId, amount);
const pending = async (merchantId: string) =>
  (await t.pool.query<{ amount: number }>('SELECT amount FROM ledger_pending_credits WHERE account_id = $1 ORDER BY transaction_id', [
    merchantAccount(merchantId, 'available'),
  ])).rows.map((r) => r.amount);
const row = async (merchantId: string) =>
  (await t.pool.query<{ balance: number }>('SELECT balance FROM ledger_accounts WHERE id = $1', [merchantAccount(merchantId, 'available')])).rows[0]!.balance;

/** Holds the merchant's available row in an open transaction until `release` is called. */
async function holdRow(merchantId: string) {
  const client = await t.pool.connect();
  await client.query('BEGIN');
  await lockBalance(client, merchantId, 'available');
  return async () => {
    await client.query('ROLLBACK');
    client.release();
  };
}

describe('pending credits', () => {
  it('a credit to a held row commits at once as a pending credit, counted in every balance read', async () => {
    const m = await t.merchant();
    await credit(m.id, 100);
    const release = await holdRow(m.id);
    try {
      const started = Date.now();
      await credit(m.id, 30);
      await credit(m.id, 5);
      expect(Date.now() - started).toBeLessThan(2000); // did not wait for the holder
      expect(await pending(m.id)).toEqual([30, 5]);
      expect(await row(m.id)).toBe(100);
      expect((await getBalance(t.pool, m.id)).available).toBe(135);
      const api = await t.admin('GET', `/admin/merchants/${m.id}`);
      expect(api.body.data.balance.available).toBe(135);
      expect(await verifyLedger(t.pool)).toEqual([]);
    } finally {
      await release();
    }
  });

  it('the next posting that holds the row folds them in; a debit may spend them, never more', async () => {
    const m = await t.merchant();
    await credit(m.id, 100);
    const release = await holdRow(m.id);
    await credit(m.id, 40);
    await release();
    expect(await pending(m.id)).toEqual([40]);
    await expect(debit(m.id, 141)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: `Insufficient available balance for merchant ${m.id}` });
    expect(await pending(m.id)).toEqual([40]); // the refused debit folded nothing
    await debit(m.id, 120); // needs the pending 40
    expect(await pending(m.id)).toEqual([]);
    expect(await row(m.id)).toBe(20);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });

  it('lockBalance reads the row plus its pending credits', async () => {
    const m = await t.merchant();
    await credit(m.id, 10);
    const release = await holdRow(m.id);
    await credit(m.id, 15);
    await release();
    expect(await withTransaction(t.pool, (tx) => lockBalance(tx, m.id, 'available'))).toBe(25);
  });

  it('keeps the books under 40 concurrent credits and 10 debits on one merchant', async () => {
    const m = await t.merchant();
    await credit(m.id, 500);
    const ops = Array.from({ length: 50 }, (_, i) => (i % 5 === 4 ? debit(m.id, 60) : credit(m.id, 3)));
    const results = await Promise.allSettled(ops);
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    for (const r of refused) expect(r.reason.code).toBe('INSUFFICIENT_BALANCE');
    const expected = 500 + 40 * 3 - (10 - refused.length) * 60;
    expect((await getBalance(t.pool, m.id)).available).toBe(expected);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });

  it('verifyLedger reports a pending credit that does not match its entries', async () => {
    const m = await t.merchant();
    await credit(m.id, 10);
    const release = await holdRow(m.id);
    await credit(m.id, 7);
    await release();
    await t.pool.query('UPDATE ledger_pending_credits SET amount = 8 WHERE account_id = $1', [merchantAccount(m.id, 'available')]);
    const problems = await verifyLedger(t.pool);
    expect(problems.some((p) => p.startsWith(`account ${merchantAccount(m.id, 'available')} balance 18`))).toBe(true);
    expect(problems.some((p) => p.includes('does not match its entries'))).toBe(true);
    await t.pool.query('UPDATE ledger_pending_credits SET amount = 7 WHERE account_id = $1', [merchantAccount(m.id, 'available')]);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });
});

describe('lockBalance after waiting for a holder that folds pending credits', () => {
  it('counts each credit once', async () => {
    const m = await t.merchant();
    await credit(m.id, 100);
    const holder = await t.pool.connect();
    await holder.query('BEGIN');
    await lockBalance(holder, m.id, 'available');
    await credit(m.id, 40); // the row is held: left pending
    expect(await pending(m.id)).toEqual([40]);
    const waiter = await t.pool.connect();
    try {
      await waiter.query('BEGIN');
      const read = lockBalance(waiter, m.id, 'available'); // waits for the holder
      await new Promise((r) => setTimeout(r, 100));
      // The holder posts (folding the pending 40 into the row) and commits.
      await post(holder, { kind: 'TEST_DEBIT', reference: 'test', entries: [
        { account: merchantAccount(m.id, 'available'), amount: -10 }, { account: FEE_REVENUE, amount: 10 },
      ] });
      await holder.query('COMMIT');
      expect(await read).toBe(130);
      await waiter.query('COMMIT');
    } finally {
      holder.release();
      waiter.release();
    }
    expect((await getBalance(t.pool, m.id)).available).toBe(130);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });
});
