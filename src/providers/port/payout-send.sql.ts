import type { Executor, Tx } from '../../platform/db.js';

/**
 * Where each kind of payout keeps its send log (migrations 0008 and 0013: payout_sends, payout_sent_at,
 * payout_seen): its table, the column that names the payout at the PSP, and when the payout is still open.
 * Every statement here is a worker's, on the payout its job was given; none is reachable by a merchant.
 */
const KINDS = {
  withdrawal: { table: 'withdrawals', key: 'id', open: `status = 'PROCESSING'` },
  refund: { table: 'refunds', key: 'id', open: `status = 'PENDING'` },
  unmatched: { table: 'unmatched_payments', key: 'devolucao_id', open: `status = 'REFUNDING'` },
} as const;

/** A withdrawal's payout, a charge refund's devolução, an unmatched payment's devolução. */
export type PayoutKind = keyof typeof KINDS;

export interface SendLog {
  /** Sends begun, each recorded before its call. */
  sends: number;
  /** The PSP once reported the payout as existing. */
  seen: boolean;
}

export interface BegunSend {
  /** This send's number: 1 for the first. */
  sends: number;
  /** Start of the latest send before this one; null before the first. */
  previousSentAt: Date | null;
}

/** The log of an open payout; undefined once it is final (or not ours). */
export async function selectSendLog(db: Executor, kind: PayoutKind, key: string): Promise<SendLog | undefined> {
  const { table, key: col, open } = KINDS[kind];
  const { rows } = await db.query<SendLog>(
    `SELECT payout_sends AS sends, payout_seen AS seen FROM ${table} WHERE ${col} = $1 AND ${open}`, [key],
  );
  return rows[0];
}

/** Records a send about to begin, in one statement; undefined when the payout is no longer open. */
export async function beginSend(db: Executor, kind: PayoutKind, key: string): Promise<BegunSend | undefined> {
  const { table, key: col, open } = KINDS[kind];
  const { rows } = await db.query<BegunSend>(
    `WITH prev AS (SELECT ${col} AS key, payout_sent_at FROM ${table} WHERE ${col} = $1 AND ${open} FOR UPDATE)
     UPDATE ${table} p SET payout_sends = p.payout_sends + 1, payout_sent_at = now_ms() FROM prev WHERE p.${col} = prev.key
     RETURNING p.payout_sends AS sends, prev.payout_sent_at AS "previousSentAt"`,
    [key],
  );
  return rows[0];
}

/** A send the PSP refused reached nothing: the uncertain send before it, if any, is again the latest (unless another began). */
export async function undoSend(db: Executor, kind: PayoutKind, key: string, send: BegunSend): Promise<void> {
  const { table, key: col } = KINDS[kind];
  await db.query(`UPDATE ${table} SET payout_sent_at = $3 WHERE ${col} = $1 AND payout_sends = $2`, [key, send.sends, send.previousSentAt]);
}

/** The PSP reported the payout: from now on its "not found" is its lag. Answers the kind's row. */
export async function markSeen<Row>(db: Executor, kind: PayoutKind, key: string): Promise<Row | undefined> {
  const { table, key: col } = KINDS[kind];
  const { rows } = await db.query(`UPDATE ${table} SET payout_seen = true WHERE ${col} = $1 RETURNING *`, [key]);
  return rows[0] as Row | undefined;
}

/**
 * Guards, read in the transaction that would fail the payout, after the kind locked its row: whether the
 * PSP's "not found" may count (sent, never reported, the latest uncertain send at least `afterMs` old by
 * the database's clock), and whether a refused send is the first and still the only one begun.
 */
export async function notFoundLongEnough(tx: Tx, kind: PayoutKind, key: string, afterMs: number): Promise<boolean> {
  const { table, key: col, open } = KINDS[kind];
  const { rows } = await tx.query(
    `SELECT 1 FROM ${table} WHERE ${col} = $1 AND ${open} AND payout_sends > 0 AND NOT payout_seen
       AND payout_sent_at <= now() - make_interval(secs => $2::double precision / 1000)`,
    [key, afterMs],
  );
  return rows.length > 0;
}

export async function isOnlySend(tx: Tx, kind: PayoutKind, key: string): Promise<boolean> {
  const { table, key: col, open } = KINDS[kind];
  const { rows } = await tx.query(`SELECT 1 FROM ${table} WHERE ${col} = $1 AND ${open} AND payout_sends = 1`, [key]);
  return rows.length > 0;
}
