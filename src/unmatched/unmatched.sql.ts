import type { Executor, Tx } from '../platform/db.js';
import { randomBase62 } from '../platform/ids.js';

export type UnmatchedStatus = 'OPEN' | 'REFUNDING' | 'REFUNDED';

export interface UnmatchedRow {
  id: string;
  end2end_id: string;
  txid: string | null;
  amount: number;
  payer_name: string | null;
  payer_tax_id: string | null;
  received_at: Date;
  status: UnmatchedStatus;
  failed_reason: string | null;
  devolucao_id: string | null;
  created_at: Date;
}

const COLUMNS = 'id, end2end_id, txid, amount, payer_name, payer_tax_id, received_at, status, failed_reason, devolucao_id, created_at';

/** `unp_` ids (docs/contract/psp.md#unmatched-payments), built like every other id (platform/ids.ts). */
export const newUnmatchedId = () => `unp_${randomBase62(22)}`;

/**
 * A devolução id for one refund attempt: `unp` + 32 random alphanumerics, inside API Pix's
 * `[a-zA-Z0-9]{1,35}`. Not derived from the record: an attempt that failed leaves its id used at the PSP.
 */
export const newDevolucaoId = () => `unp${randomBase62(32)}`;

export interface NewUnmatched {
  end2endId: string;
  txid: string | null;
  amount: number;
  payerName: string | null;
  payerTaxId: string | null;
  receivedAt: Date;
}

/**
 * Records a PIX no charge took, once per end-to-end id; undefined when it is already recorded, or when a
 * charge holds that end-to-end id (the same PIX credited meanwhile by a concurrent delivery).
 */
export async function insertUnmatched(tx: Tx, u: NewUnmatched): Promise<UnmatchedRow | undefined> {
  const { rows } = await tx.query<UnmatchedRow>(
    `INSERT INTO unmatched_payments (id, end2end_id, txid, amount, payer_name, payer_tax_id, received_at)
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT EXISTS (SELECT 1 FROM charges WHERE end2end_id = $2)
     ON CONFLICT (end2end_id) DO NOTHING RETURNING ${COLUMNS}`,
    [newUnmatchedId(), u.end2endId, u.txid, u.amount, u.payerName, u.payerTaxId, u.receivedAt],
  );
  return rows[0];
}

export async function selectUnmatched(db: Executor, id: string, forUpdate = false): Promise<UnmatchedRow | undefined> {
  const { rows } = await db.query<UnmatchedRow>(`SELECT ${COLUMNS} FROM unmatched_payments WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function selectUnmatchedByEndToEnd(db: Executor, end2endId: string): Promise<UnmatchedRow | undefined> {
  const { rows } = await db.query<UnmatchedRow>(`SELECT ${COLUMNS} FROM unmatched_payments WHERE end2end_id = $1`, [end2endId]);
  return rows[0];
}

/** The record whose current refund attempt is this devolução, locked; only while it is REFUNDING. */
export async function lockRefunding(tx: Tx, devolucaoId: string): Promise<UnmatchedRow | undefined> {
  const { rows } = await tx.query<UnmatchedRow>(
    `SELECT ${COLUMNS} FROM unmatched_payments WHERE devolucao_id = $1 AND status = 'REFUNDING' FOR UPDATE`, [devolucaoId],
  );
  return rows[0];
}

/** A REFUNDING record (any provider's job or poll reads it to know what to ask). */
export async function selectRefunding(db: Executor, devolucaoId: string): Promise<UnmatchedRow | undefined> {
  const { rows } = await db.query<UnmatchedRow>(
    `SELECT ${COLUMNS} FROM unmatched_payments WHERE devolucao_id = $1 AND status = 'REFUNDING'`, [devolucaoId],
  );
  return rows[0];
}

/** A refund attempt begins: a new devolução, whose send log starts empty (docs/contract/psp.md#payout-jobs). */
export async function markRefunding(tx: Tx, id: string, devolucaoId: string): Promise<UnmatchedRow> {
  const { rows } = await tx.query<UnmatchedRow>(
    `UPDATE unmatched_payments SET status = 'REFUNDING', devolucao_id = $2, failed_reason = NULL, refund_requested_at = now_ms(),
       payout_sends = 0, payout_sent_at = NULL, payout_seen = false
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, devolucaoId],
  );
  return rows[0]!;
}

export async function markRefunded(tx: Tx, id: string): Promise<void> {
  await tx.query(`UPDATE unmatched_payments SET status = 'REFUNDED', refunded_at = now_ms() WHERE id = $1`, [id]);
}

export async function reopen(tx: Tx, id: string, reason: string): Promise<void> {
  await tx.query(`UPDATE unmatched_payments SET status = 'OPEN', failed_reason = $2 WHERE id = $1`, [id, reason]);
}

/** Which of these end-to-end ids are already recorded, as a credited charge or an unmatched payment. */
export async function selectKnownEndToEndIds(db: Executor, ids: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ e: string }>(
    `SELECT e FROM unnest($1::text[]) e
     WHERE EXISTS (SELECT 1 FROM charges c WHERE c.end2end_id = e) OR EXISTS (SELECT 1 FROM unmatched_payments u WHERE u.end2end_id = e)`,
    [ids],
  );
  return new Set(rows.map((r) => r.e));
}

/** The devolução ids of REFUNDING records, for the worker-start recovery of their refund jobs. */
export async function selectRefundingDevolucoes(db: Executor): Promise<string[]> {
  const { rows } = await db.query<{ devolucao_id: string }>(`SELECT devolucao_id FROM unmatched_payments WHERE status = 'REFUNDING'`);
  return rows.map((r) => r.devolucao_id);
}

/** The operator's list (keyset-paged by platform/pagination.ts); `status` filters when given. */
export const listUnmatchedQuery = (status: UnmatchedStatus | undefined) => ({
  sql: `SELECT ${COLUMNS} FROM unmatched_payments WHERE ($1::text IS NULL OR status = $1)`,
  params: [status ?? null],
});
