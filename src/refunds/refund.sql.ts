import type { Executor, Tx } from '../platform/db.js';

export interface RefundRow {
  id: string;
  merchant_id: string;
  charge_id: string;
  amount: number;
  merchant_debit: number;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  reason: 'MERCHANT' | 'DISPUTE';
}

/** The partial unique index: at most one PENDING or COMPLETED refund per charge. */
export const LIVE_REFUND_INDEX = 'refunds_one_live_per_charge';

export async function insertRefund(
  tx: Tx, r: Omit<RefundRow, 'status'> & { status: 'PENDING' | 'COMPLETED' },
): Promise<void> {
  await tx.query(
    `INSERT INTO refunds (id, merchant_id, charge_id, amount, merchant_debit, status, reason, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $6 = 'COMPLETED' THEN now_ms() END)`,
    [r.id, r.merchant_id, r.charge_id, r.amount, r.merchant_debit, r.status, r.reason],
  );
}

/** `forUpdate` locks the row: only after the charge's lock (see lockCharge), never before it. */
export async function selectRefund(db: Executor, id: string, forUpdate = false): Promise<RefundRow | undefined> {
  const { rows } = await db.query<RefundRow>(
    `SELECT id, merchant_id, charge_id, amount, merchant_debit, status, reason FROM refunds WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id],
  );
  return rows[0];
}

export async function completeRefund(tx: Tx, id: string): Promise<void> {
  await tx.query("UPDATE refunds SET status = 'COMPLETED', completed_at = now_ms() WHERE id = $1", [id]);
}

export async function failRefund(tx: Tx, id: string, reason: string): Promise<void> {
  await tx.query("UPDATE refunds SET status = 'FAILED', failed_reason = $2 WHERE id = $1", [id, reason]);
}

/** What the provider needs to return a received PIX; null once the refund is settled. */
export async function selectPendingRefundRequest(db: Executor, id: string) {
  const { rows } = await db.query<{ id: string; charge_id: string; amount: number; end2end_id: string }>(
    `SELECT r.id, r.charge_id, r.amount, c.end2end_id FROM refunds r JOIN charges c ON c.id = r.charge_id
     WHERE r.id = $1 AND r.status = 'PENDING'`,
    [id],
  );
  return rows[0] ?? null;
}

/** The request job of every PENDING refund, oldest first, in one statement (keyed as enqueueing keys them). */
export async function enqueuePendingRefundRequests(db: Executor, o: { task: string; keyPrefix: string }): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1::text, json_build_object('refundId', r.id), job_key => $2 || r.id, max_attempts => 25)
     FROM (SELECT id FROM refunds WHERE status = 'PENDING' ORDER BY created_at) r`,
    [o.task, o.keyPrefix],
  );
}
