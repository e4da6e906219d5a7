import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { charge, fund } from '../support/ledger.js';
import { withTransaction } from '../../src/platform/db.js';
import { merchantAccount, post, PSP_CLEARING } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const credit = (merchantId: string, amount: number) => fund(t.pool, merchantId, amount);
const debit = (merchantId: string, amount: number) => charge(t.pool, merchantId, amount);
const available = async (id: string) => (await t.request('GET', `/admin/merchants/${id}`, { headers: { authorization: 'Bearer test-admin-token-of-at-least-32-characters' } })).body.data.balance.available;

describe('ledger', () => {
  it('keeps every invariant under 50 concurrent postings on one account', async () => {
    const m = await t.merchant();
    await credit(m.id, 1000);
    // 25 credits of 7 and 25 debits of 50 race; debits beyond the balance must fail, never go negative.
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => (i % 2 ? credit(m.id, 7) : debit(m.id, 50))));
    const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    for (const f of failed) expect(f.reason.code).toBe('INSUFFICIENT_BALANCE');
    const debited = 25 - failed.length;
    expect(await available(m.id)).toBe(1000 + 25 * 7 - debited * 50);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });

  it('refuses to make a merchant balance negative, naming the merchant, and writes nothing', async () => {
    const m = await t.merchant();
    await credit(m.id, 100);
    const before = await t.pool.query('SELECT count(*)::int AS n FROM ledger_transactions');
    await expect(debit(m.id, 101)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: `Insufficient available balance for merchant ${m.id}` });
    const after = await t.pool.query('SELECT count(*)::int AS n FROM ledger_transactions');
    expect(after.rows[0].n).toBe(before.rows[0].n);
    expect(await available(m.id)).toBe(100);
  });

  it('refuses an unbalanced posting', async () => {
    const m = await t.merchant();
    await expect(withTransaction(t.pool, (tx) => post(tx, {
      kind: 'BAD', reference: 'test',
      entries: [{ account: PSP_CLEARING, amount: -10 }, { account: merchantAccount(m.id, 'available'), amount: 11 }],
    }))).rejects.toMatchObject({ code: 'PX002' });
  });

  it('refuses a posting to an account that does not exist, and writes nothing (migration 0043: no foreign key does it)', async () => {
    const m = await t.merchant();
    const before = await t.pool.query('SELECT count(*)::int AS n FROM ledger_transactions');
    await expect(withTransaction(t.pool, (tx) => post(tx, {
      kind: 'BAD', reference: 'test',
      entries: [{ account: PSP_CLEARING, amount: -10 }, { account: merchantAccount(m.id, 'available'), amount: 5 }, { account: 'platform:nowhere', amount: 5 }],
    }))).rejects.toMatchObject({ code: 'PX002' });
    const after = await t.pool.query('SELECT count(*)::int AS n FROM ledger_transactions');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('never deletes an account or a transaction', async () => {
    const m = await t.merchant();
    await credit(m.id, 10);
    await expect(t.pool.query('DELETE FROM ledger_accounts WHERE id = $1', [merchantAccount(m.id, 'available')])).rejects.toMatchObject({ code: 'PX002' });
    await expect(t.pool.query(`DELETE FROM ledger_transactions WHERE reference = 'none'`)).rejects.toMatchObject({ code: 'PX002' });
  });

  it('detects entries of an account or a transaction that does not exist', async () => {
    const { rows: [tx] } = await t.pool.query<{ id: number }>('SELECT max(id)::int AS id FROM ledger_transactions');
    const { rows } = await t.pool.query<{ id: number }>(
      `INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES ($1, 'platform:nowhere', 5), ($1, $2, -5), (-1, $2, 1), (-1, $2, -1) RETURNING id`,
      [tx!.id, PSP_CLEARING]);
    const problems = (await verifyLedger(t.pool)).join('\n');
    await t.pool.query('DELETE FROM ledger_entries WHERE id = ANY ($1)', [rows.map((r) => r.id)]);
    expect(problems).toContain('platform:nowhere');
    expect(problems).toContain('transaction -1');
    expect(await verifyLedger(t.pool)).toEqual([]);
  });

  it('is backed by a CHECK constraint, not only by the posting function', async () => {
    const m = await t.merchant();
    await expect(t.pool.query(`UPDATE ledger_accounts SET balance = -1 WHERE id = $1`, [merchantAccount(m.id, 'available')]))
      .rejects.toMatchObject({ code: '23514' });
  });

  it('detects drift between a balance and its entries', async () => {
    const m = await t.merchant();
    await credit(m.id, 50);
    await t.pool.query(`UPDATE ledger_accounts SET balance = balance + 1 WHERE id = $1`, [merchantAccount(m.id, 'available')]);
    expect((await verifyLedger(t.pool)).join()).toContain(`${m.id}:available`);
    await t.pool.query(`UPDATE ledger_accounts SET balance = balance - 1 WHERE id = $1`, [merchantAccount(m.id, 'available')]);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });
});
