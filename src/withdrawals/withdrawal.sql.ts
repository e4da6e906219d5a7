import type { PixKeyType } from '../pix/index.js';
import type { Executor } from '../platform/db.js';
import type { WithdrawalStatus } from './withdrawal.schemas.js';

export interface WithdrawalRow {
  id: string;
  merchant_id: string;
  amount: number;
  fee: number;
  status: WithdrawalStatus;
  pix_key: string;
  pix_key_type: PixKeyType;
  description: string | null;
  tax_id: string | null;
  callback_url: string | null;
  end2end_id: string | null;
  failed_reason: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** Sends begun, each recorded before its call (docs/contract/psp.md#uncertain-payouts; providers/port/payout-send.sql.ts). */
  payout_sends: number;
  /** Start of the latest send that may have reached the PSP; null before the first. */
  payout_sent_at: Date | null;
  /** The PSP once reported the payout as existing: a later "not found" is its lag, never proof. */
  payout_seen: boolean;
}

/** The partial unique index that keeps one withdrawal in progress per merchant. */
export const ONE_IN_PROGRESS = 'withdrawals_one_in_progress';

export type NewWithdrawal = Pick<
  WithdrawalRow,
  'id' | 'merchant_id' | 'amount' | 'fee' | 'pix_key' | 'pix_key_type' | 'description' | 'tax_id' | 'callback_url'
>;

export async function insertWithdrawal(db: Executor, w: NewWithdrawal): Promise<WithdrawalRow> {
  const { rows } = await db.query<WithdrawalRow>(
    `INSERT INTO withdrawals (id, merchant_id, amount, fee, pix_key, pix_key_type, description, tax_id, callback_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [w.id, w.merchant_id, w.amount, w.fee, w.pix_key, w.pix_key_type, w.description, w.tax_id, w.callback_url],
  );
  return rows[0]!;
}

export async function hasWithdrawalInProgress(db: Executor, merchantId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM withdrawals WHERE merchant_id = $1 AND status IN ('PENDING', 'PROCESSING') LIMIT 1`,
    [merchantId],
  );
  return rows.length > 0;
}

/** A merchant's withdrawal; another merchant's id is simply not found. */
export async function selectMerchantWithdrawal(db: Executor, merchantId: string, id: string): Promise<WithdrawalRow | undefined> {
  const { rows } = await db.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  return rows[0];
}

/** For the worker and the operator (never reachable by a merchant): the row, locked for a state change. */
export async function lockWithdrawal(db: Executor, id: string): Promise<WithdrawalRow | undefined> {
  const { rows } = await db.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = $1 FOR UPDATE', [id]);
  return rows[0];
}

export async function updateToProcessing(db: Executor, id: string): Promise<WithdrawalRow> {
  const { rows } = await db.query<WithdrawalRow>(
    `UPDATE withdrawals SET status = 'PROCESSING', updated_at = now_ms() WHERE id = $1 AND status = 'PENDING' RETURNING *`,
    [id],
  );
  return rows[0]!;
}

export async function updateToCompleted(db: Executor, id: string, end2endId: string): Promise<WithdrawalRow> {
  const { rows } = await db.query<WithdrawalRow>(
    `UPDATE withdrawals SET status = 'COMPLETED', end2end_id = $2, completed_at = now_ms(), updated_at = now_ms()
     WHERE id = $1 AND status = 'PROCESSING' RETURNING *`,
    [id, end2endId],
  );
  return rows[0]!;
}

export async function updateToFailed(db: Executor, id: string, reason: string): Promise<WithdrawalRow> {
  const { rows } = await db.query<WithdrawalRow>(
    `UPDATE withdrawals SET status = 'FAILED', failed_reason = $2, updated_at = now_ms()
     WHERE id = $1 AND status = 'PROCESSING' RETURNING *`,
    [id, reason],
  );
  return rows[0]!;
}

/** Open withdrawals whose state has not moved for `olderThanMs`: their job may have died with its worker. */
export async function selectStuckWithdrawalIds(db: Executor, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM withdrawals
     WHERE status IN ('PENDING', 'PROCESSING') AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY updated_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.id);
}

/** Keyset list query (merchant, optional status); keysetPage adds the cursor, order and limit. */
export const listWithdrawalsQuery = (merchantId: string, status: WithdrawalStatus | null) => ({
  sql: 'SELECT * FROM withdrawals w WHERE w.merchant_id = $1 AND ($2::text IS NULL OR w.status = $2::text)',
  params: [merchantId, status],
  alias: 'w',
});
