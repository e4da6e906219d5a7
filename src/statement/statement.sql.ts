import type { Executor } from '../platform/db.js';
import type { KeysetQuery } from '../platform/pagination.js';

/** A statement line with what its posting refers to (migration 0011; the line itself never changes). */
export interface LineRow {
  id: string;
  created_at: Date;
  amount: number;
  balance_after: number;
  kind: string;
  charge_id: string | null;
  /** The merchant of the charge the line refers to: a split recipient sees another merchant's charge. */
  charge_merchant: string | null;
  charge_fee: number | null;
  payment_e2e: string | null;
  refund_id: string | null;
  dispute_id: string | null;
  dispute_refund_id: string | null;
  withdrawal_id: string | null;
  withdrawal_fee: number | null;
  withdrawal_e2e: string | null;
}

/** The ledger account kind of each statement account. */
export const ACCOUNT_KIND = { available: 'AVAILABLE', pending: 'PENDING', blocked: 'BLOCKED' } as const;
export type AccountKind = (typeof ACCOUNT_KIND)[keyof typeof ACCOUNT_KIND];

// A posting's reference is the id of what moved the money; its kind says which table holds it. Each lookup
// is a LATERAL subquery whose kind test is a one-time filter (OFFSET 0 keeps the planner from flattening it
// into a join filter tested after the lookup): a line costs only the lookups of its kind.
const LINE_SELECT = `SELECT l.id, l.created_at, l.amount, l.balance_after, t.kind,
    coalesce(c.id, r.charge_id, d.charge_id) AS charge_id, coalesce(c.merchant_id, rc.merchant_id) AS charge_merchant,
    c.fee AS charge_fee, coalesce(c.end2end_id, rc.end2end_id) AS payment_e2e,
    r.id AS refund_id, d.id AS dispute_id, d.refund_id AS dispute_refund_id, w.id AS withdrawal_id, w.fee AS withdrawal_fee, w.end2end_id AS withdrawal_e2e
  FROM statement_lines l
  JOIN ledger_transactions t ON t.id = l.transaction_id
  LEFT JOIN LATERAL (SELECT x.id, x.merchant_id, x.fee, x.end2end_id FROM charges x
                     WHERE t.kind = 'CHARGE_PAYMENT' AND x.id = t.reference OFFSET 0) c ON true
  LEFT JOIN LATERAL (SELECT x.id, x.charge_id FROM refunds x
                     WHERE t.kind IN ('REFUND', 'REFUND_REVERSAL') AND x.id = t.reference OFFSET 0) r ON true
  LEFT JOIN LATERAL (SELECT x.id, x.charge_id,
                            CASE WHEN t.kind = 'DISPUTE_RETURN' THEN (SELECT y.id FROM refunds y WHERE y.charge_id = x.charge_id AND y.reason = 'DISPUTE'
                                                                     ORDER BY y.created_at DESC LIMIT 1) END AS refund_id
                     FROM disputes x WHERE t.kind IN ('DISPUTE_BLOCK', 'DISPUTE_RELEASE', 'DISPUTE_RETURN') AND x.id = t.reference OFFSET 0) d ON true
  LEFT JOIN LATERAL (SELECT x.id, x.fee, x.end2end_id FROM withdrawals x
                     WHERE t.kind IN ('WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID', 'WITHDRAWAL_RELEASE') AND x.id = t.reference OFFSET 0) w ON true
  LEFT JOIN LATERAL (SELECT x.merchant_id, x.end2end_id FROM charges x
                     WHERE coalesce(r.charge_id, d.charge_id) IS NOT NULL AND x.id = coalesce(r.charge_id, d.charge_id) OFFSET 0) rc ON true`;

// The merchant's account by (merchant_id, kind); open bounds are ±infinity, so the index range always applies.
const IN_RANGE = `l.account_id = (SELECT a.id FROM ledger_accounts a WHERE a.merchant_id = $1 AND a.kind = $2)
  AND l.created_at >= $3::timestamptz AND l.created_at < $4::timestamptz`;

export interface Range {
  from: string;
  to: string;
}

/** The lines of one account in [from, to), for keysetPage (newest first by created_at, id). */
export const pageQuery = (merchantId: string, kind: AccountKind, range: Range): KeysetQuery => ({
  sql: `${LINE_SELECT} WHERE ${IN_RANGE}`,
  params: [merchantId, kind, range.from, range.to],
  alias: 'l',
});

/** The next `limit` lines after (at, id), oldest first: one batch of an export. */
export async function selectBatch(db: Executor, merchantId: string, kind: AccountKind, range: Range, after: { at: Date | string; id: string }, limit: number) {
  const { rows } = await db.query<LineRow>(
    `${LINE_SELECT} WHERE ${IN_RANGE} AND (l.created_at, l.id) > ($5::timestamptz, $6) ORDER BY l.created_at, l.id LIMIT $7`,
    [merchantId, kind, range.from, range.to, after.at, after.id, limit],
  );
  return rows;
}

/**
 * Folds the account's committed pending credits into its statement (SQL ledger_fold, migration 0011), so
 * a read ends at the balance GET /me/balance shows. A no-op without pending credits.
 */
export async function foldPending(db: Executor, merchantId: string, kind: AccountKind): Promise<void> {
  await db.query('SELECT ledger_fold(a.id) FROM ledger_accounts a WHERE a.merchant_id = $1 AND a.kind = $2', [merchantId, kind]);
}

/** The account's balance just before `at`: the balance after its last line before it (0 before the first). */
export async function balanceBefore(db: Executor, merchantId: string, kind: AccountKind, at: string): Promise<number> {
  const { rows } = await db.query<{ balance_after: number }>(
    `SELECT l.balance_after FROM statement_lines l
     WHERE l.account_id = (SELECT a.id FROM ledger_accounts a WHERE a.merchant_id = $1 AND a.kind = $2) AND l.created_at < $3::timestamptz
     ORDER BY l.created_at DESC, l.id DESC LIMIT 1`,
    [merchantId, kind, at],
  );
  return rows[0]?.balance_after ?? 0;
}

export const SAO_PAULO = 'America/Sao_Paulo';

/**
 * Per local day in [from, to] (both YYYY-MM-DD in America/Sao_Paulo), the available account's credits and
 * debits as positive sums, and its balance when `from` began.
 */
export async function selectDaily(db: Executor, merchantId: string, from: string, to: string) {
  const { rows } = await db.query<{ day: string; credits: number; debits: number; opening: number }>(
    `WITH account AS (SELECT a.id FROM ledger_accounts a WHERE a.merchant_id = $1 AND a.kind = 'AVAILABLE'),
     bounds AS (SELECT ($2::date::timestamp AT TIME ZONE '${SAO_PAULO}') AS starts, (($3::date + 1)::timestamp AT TIME ZONE '${SAO_PAULO}') AS ends),
     days AS (SELECT d::date AS day FROM generate_series($2::date::timestamp, $3::date::timestamp, interval '1 day') d),
     moves AS (
       SELECT (l.created_at AT TIME ZONE '${SAO_PAULO}')::date AS day,
              coalesce(sum(l.amount) FILTER (WHERE l.amount > 0), 0)::bigint AS credits,
              coalesce(-sum(l.amount) FILTER (WHERE l.amount < 0), 0)::bigint AS debits
       FROM statement_lines l, bounds b
       WHERE l.account_id = (SELECT id FROM account) AND l.created_at >= b.starts AND l.created_at < b.ends
       GROUP BY 1),
     opening AS (
       SELECT coalesce((SELECT l.balance_after FROM statement_lines l, bounds b
                        WHERE l.account_id = (SELECT id FROM account) AND l.created_at < b.starts
                        ORDER BY l.created_at DESC, l.id DESC LIMIT 1), 0)::bigint AS balance)
     SELECT to_char(days.day, 'YYYY-MM-DD') AS day, coalesce(m.credits, 0)::bigint AS credits, coalesce(m.debits, 0)::bigint AS debits,
            (SELECT balance FROM opening) AS opening
     FROM days LEFT JOIN moves m ON m.day = days.day ORDER BY days.day`,
    [merchantId, from, to],
  );
  return rows;
}

/**
 * The merchant's export lock (docs/contract/statement.md#exports), taken by the export's own process on the
 * connection it holds for its whole life, whichever process of the fleet runs it: released by
 * unlockExport when the file is written, or with the connection when the process dies.
 */
export async function tryExportLock(db: Executor, merchantId: string): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>(
    "SELECT pg_try_advisory_lock(hashtextextended('statement-export:' || $1, 0)) AS locked", [merchantId],
  );
  return rows[0]!.locked;
}

/**
 * Released before the download ends, so the merchant's next export never meets it: a lock left to the
 * connection's close is freed by the server a moment after the process has gone.
 */
export async function unlockExport(db: Executor, merchantId: string): Promise<void> {
  await db.query("SELECT pg_advisory_unlock(hashtextextended('statement-export:' || $1, 0))", [merchantId]);
}
