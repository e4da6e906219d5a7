import type { Executor } from '../platform/db.js';

/**
 * Checks the ledger's invariants and returns every violation found (empty when the books hold):
 * each transaction sums to zero, each entry names an account and a transaction that exist, each merchant
 * balance (row plus pending credits) equals the sum of its entries, no balance row is negative, and each pending credit matches its transaction's entries.
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
  // Only ledger_post writes entries, and it checks their accounts (migration 0043 dropped the foreign keys).
  const orphans = await db.query<{ id: number; account: string }>(
    `SELECT e.transaction_id AS id, e.account_id AS account FROM ledger_entries e
     WHERE NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.id = e.account_id)
        OR NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.id = e.transaction_id)`,
  );
  for (const r of orphans.rows) problems.push(`entry of transaction ${r.id} on ${r.account}: no such transaction or account`);
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
  problems.push(...(await verifyStatement(db)));
  return problems;
}

/**
 * The statement's chain (docs/contract/statement.md#statement-chain, migration 0011), per merchant account in posting order:
 * places 1, 2, 3..., balance_after[n] = balance_after[n-1] + amount[n] from 0, times never going back,
 * the last line's balance_after = the balance row; and each (transaction, account) that moved a merchant
 * account has exactly one line of its amount, or is still a pending credit — never both, never neither.
 */
export async function verifyStatement(db: Executor): Promise<string[]> {
  const problems: string[] = [];
  const chain = await db.query<{ account: string; seq: number; amount: number; after: number; prev: number | null }>(
    `SELECT account_id AS account, seq, amount, balance_after AS after, prev FROM (
       SELECT l.*, lag(balance_after) OVER w AS prev, lag(seq) OVER w AS prev_seq, lag(created_at) OVER w AS prev_at
       FROM statement_lines l WINDOW w AS (PARTITION BY account_id ORDER BY seq)) x
     WHERE seq <> coalesce(prev_seq, 0) + 1 OR balance_after <> coalesce(prev, 0) + amount OR created_at < prev_at OR balance_after < 0`,
  );
  for (const r of chain.rows) problems.push(`statement of ${r.account} breaks its chain at line ${r.seq}: ${r.prev ?? 0} + ${r.amount} -> ${r.after}`);
  const ends = await db.query<{ id: string; balance: number; line_seq: number; after: number | null; seq: number | null }>(
    `SELECT a.id, a.balance, a.line_seq, l.balance_after AS after, l.seq FROM ledger_accounts a
     LEFT JOIN LATERAL (SELECT balance_after, seq FROM statement_lines s WHERE s.account_id = a.id ORDER BY seq DESC LIMIT 1) l ON true
     WHERE a.merchant_id IS NOT NULL AND (a.balance <> coalesce(l.balance_after, 0) OR a.line_seq <> coalesce(l.seq, 0))`,
  );
  for (const r of ends.rows) problems.push(`statement of ${r.id} ends at line ${r.seq ?? 0} with ${r.after ?? 0}, its row says line ${r.line_seq} with ${r.balance}`);
  const unmatched = await db.query<{ tx: number; account: string; moved: number | null; line: number | null; pending: number | null }>(
    `WITH moved AS (
       SELECT e.transaction_id AS tx, e.account_id AS account, sum(e.amount)::bigint AS amount FROM ledger_entries e
       JOIN ledger_accounts a ON a.id = e.account_id AND a.merchant_id IS NOT NULL
       GROUP BY 1, 2 HAVING sum(e.amount) <> 0),
     lines AS (SELECT transaction_id AS tx, account_id AS account, sum(amount)::bigint AS amount, count(*) AS n FROM statement_lines GROUP BY 1, 2)
     SELECT coalesce(m.tx, l.tx, p.transaction_id) AS tx, coalesce(m.account, l.account, p.account_id) AS account,
            m.amount AS moved, l.amount AS line, p.amount AS pending
     FROM moved m
     FULL JOIN lines l ON l.tx = m.tx AND l.account = m.account
     FULL JOIN ledger_pending_credits p ON p.transaction_id = coalesce(m.tx, l.tx) AND p.account_id = coalesce(m.account, l.account)
     WHERE m.amount IS NULL OR l.n > 1 OR (l.amount IS NULL) = (p.amount IS NULL) OR coalesce(l.amount, p.amount) <> m.amount`,
  );
  for (const r of unmatched.rows) {
    problems.push(`transaction ${r.tx} moved ${r.account} by ${r.moved ?? 0} but its statement line says ${r.line ?? 'nothing'} (pending: ${r.pending ?? 'none'})`);
  }
  return problems;
}
