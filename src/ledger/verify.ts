import type { Executor } from '../platform/db.js';

/**
 * Checks the ledger's invariants and returns every violation found (empty when the books hold):
 * each transaction sums to zero, each merchant balance row equals the sum of its entries, none is negative.
 */
export async function verifyLedger(db: Executor): Promise<string[]> {
  const problems: string[] = [];
  const unbalanced = await db.query<{ id: number; total: number }>(
    `SELECT transaction_id AS id, sum(amount)::bigint AS total FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`,
  );
  for (const r of unbalanced.rows) problems.push(`transaction ${r.id} sums to ${r.total}`);
  const empty = await db.query<{ id: number }>(
    `SELECT t.id FROM ledger_transactions t WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id)`,
  );
  for (const r of empty.rows) problems.push(`transaction ${r.id} has no entries`);
  const drift = await db.query<{ id: string; balance: number; total: number }>(
    `SELECT a.id, a.balance, coalesce(sum(e.amount), 0)::bigint AS total
     FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
     WHERE a.merchant_id IS NOT NULL GROUP BY a.id HAVING a.balance <> coalesce(sum(e.amount), 0) OR a.balance < 0`,
  );
  for (const r of drift.rows) problems.push(`account ${r.id} balance ${r.balance} but entries sum to ${r.total}`);
  return problems;
}
