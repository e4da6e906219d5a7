import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { createCharge, expectError, pay } from '../charges/support.js';
import { charge as debit } from '../support/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { merchantAccount } from '../../src/ledger/ledger.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

/**
 * Lines land on chosen São Paulo times: the test moves each line of the account to a time of its own
 * (in posting order, so the chain and its time order stay as the ledger made them).
 */
async function placeLines(merchantId: string, times: string[]) {
  const account = merchantAccount(merchantId, 'available');
  const { rows } = await t.pool.query<{ seq: number }>('SELECT seq FROM statement_lines WHERE account_id = $1 ORDER BY seq', [account]);
  expect(rows.length).toBe(times.length);
  for (const [i, r] of rows.entries()) {
    await t.pool.query(`UPDATE statement_lines SET created_at = ($3::timestamp AT TIME ZONE 'America/Sao_Paulo') WHERE account_id = $1 AND seq = $2`, [account, r.seq, times[i]]);
  }
}

describe('GET /me/statement/daily', () => {
  it('per São Paulo day: opening, credits, debits, closing; empty days included; closing = next opening', async () => {
    const m = await t.merchant();
    for (const amount of [10_000, 2_000, 500]) await pay(t, (await createCharge(t, m, { amount })).id);
    await debit(t.pool, m.id, 3_000);
    // 23:30 in São Paulo is already the next day in UTC: the day is São Paulo's.
    await placeLines(m.id, ['2026-03-01 09:00', '2026-03-02 23:30', '2026-03-02 23:59:59.999', '2026-03-04 00:00']);
    const res = await t.request('GET', '/me/statement/daily?from=2026-02-28&to=2026-03-05', { key: m.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { date: '2026-02-28', opening: 0, credits: 0, debits: 0, closing: 0 },
      { date: '2026-03-01', opening: 0, credits: 10_000, debits: 0, closing: 10_000 },
      { date: '2026-03-02', opening: 10_000, credits: 2_500, debits: 0, closing: 12_500 },
      { date: '2026-03-03', opening: 12_500, credits: 0, debits: 0, closing: 12_500 },
      { date: '2026-03-04', opening: 12_500, credits: 0, debits: 3_000, closing: 9_500 },
      { date: '2026-03-05', opening: 9_500, credits: 0, debits: 0, closing: 9_500 },
    ]);
    const later = await t.request('GET', '/me/statement/daily?from=2026-03-03&to=2026-03-03', { key: m.key });
    expect(later.body.data).toEqual([{ date: '2026-03-03', opening: 12_500, credits: 0, debits: 0, closing: 12_500 }]);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });

  it('defaults to the 30 days up to today, and bounds and validates the range', async () => {
    const m = await t.merchant();
    const res = await t.request('GET', '/me/statement/daily', { key: m.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(30);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
    expect(res.body.data.at(-1).date).toBe(today);
    const bad = async (query: string, message: string) =>
      expectError(await t.request('GET', `/me/statement/daily?${query}`, { key: m.key }), 400, 'VALIDATION_ERROR', message);
    await bad('from=2026-02-30&to=2026-03-01', 'from: must be a date YYYY-MM-DD');
    await bad('from=2026-3-1&to=2026-03-01', 'from: must be a date YYYY-MM-DD');
    await bad('from=2026-01-01&to=tomorrow', 'to: must be a date YYYY-MM-DD');
    await bad('from=2026-03-02&to=2026-03-01', 'to: must not be before from');
    await bad('from=2025-01-01&to=2026-01-02', 'from: the range is at most 366 days');
    expect((await t.request('GET', '/me/statement/daily?from=2024-01-01&to=2024-12-31', { key: m.key })).body.data).toHaveLength(366);
  });
});

describe('verifyLedger checks the statement chain', () => {
  it('reports a broken balance, a lost line and a line that disagrees with its entries', async () => {
    const m = await t.merchant();
    for (const amount of [1_000, 2_000]) await pay(t, (await createCharge(t, m, { amount })).id);
    const account = merchantAccount(m.id, 'available');
    expect(await verifyLedger(t.pool)).toEqual([]);

    await t.pool.query('UPDATE statement_lines SET balance_after = balance_after + 1 WHERE account_id = $1 AND seq = 1', [account]);
    expect((await verifyLedger(t.pool)).join('\n')).toContain(`statement of ${account} breaks its chain at line 2`);
    await t.pool.query('UPDATE statement_lines SET balance_after = balance_after - 1 WHERE account_id = $1 AND seq = 1', [account]);

    await t.pool.query('UPDATE statement_lines SET amount = amount + 5, balance_after = balance_after + 5 WHERE account_id = $1 AND seq = 2', [account]);
    const problems = (await verifyLedger(t.pool)).join('\n');
    expect(problems).toContain(`statement of ${account} ends at line 2 with 3005, its row says line 2 with 3000`);
    expect(problems).toMatch(/moved .* by 2000 but its statement line says 2005/);
    await t.pool.query('UPDATE statement_lines SET amount = amount - 5, balance_after = balance_after - 5 WHERE account_id = $1 AND seq = 2', [account]);

    const lost = await t.pool.query('DELETE FROM statement_lines WHERE account_id = $1 AND seq = 2 RETURNING *', [account]);
    expect((await verifyLedger(t.pool)).join('\n')).toContain('but its statement line says nothing');
    const l = lost.rows[0];
    await t.pool.query('INSERT INTO statement_lines VALUES ($1, $2, $3, $4, $5, $6, $7)', [l.account_id, l.seq, l.id, l.transaction_id, l.amount, l.balance_after, l.created_at]);
    expect(await verifyLedger(t.pool)).toEqual([]);
  });
});
