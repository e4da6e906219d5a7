import type { Executor } from '../platform/db.js';

/**
 * Checks the ledger's invariants and returns every violation found (empty when the books hold):
 * each transaction sums to zero, each merchant balance (row plus pending credits) equals the sum of its
 * entries, no balance row is negative, and each pending credit matches its transaction's entries.
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
  // A merchant balance is its row plus its pending credits (migration 0006).
  const drift = await db.query<{ id: string; balance: number; total: number }>(
    `SELECT a.id, (a.balance + coalesce(p.pending, 0))::bigint AS balance, coalesce(e.total, 0)::bigint AS total
     FROM ledger_accounts a
     LEFT JOIN (SELECT account_id, sum(amount) AS total FROM ledger_entries GROUP BY account_id) e ON e.account_id = a.id
     LEFT JOIN (SELECT account_id, sum(amount) AS pending FROM ledger_pending_credits GROUP BY account_id) p ON p.account_id = a.id
     WHERE a.merchant_id IS NOT NULL AND (a.balance + coalesce(p.pending, 0) <> coalesce(e.total, 0) OR a.balance < 0)`,
  );
  for (const r of drift.rows) problems.push(`account ${r.id} balance ${r.balance} but entries sum to ${r.total}`);
  // A pending credit is the whole of its transaction's entries on a merchant account.
  const stray = await db.query<{ id: number; account: string }>(
    `SELECT p.transaction_id AS id, p.account_id AS account FROM ledger_pending_credits p
     JOIN ledger_accounts a ON a.id = p.account_id
     WHERE a.merchant_id IS NULL OR p.amount <> (SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e
                                                 WHERE e.transaction_id = p.transaction_id AND e.account_id = p.account_id)`,
  );
  for (const r of stray.rows) problems.push(`pending credit of transaction ${r.id} on ${r.account} does not match its entries`);
  return problems;
}
