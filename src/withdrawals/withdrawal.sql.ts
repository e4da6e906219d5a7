import { deliveriesDue } from '../events/event-fanout.sql.js';
import { postingSql, queryPosting, type Posting } from '../ledger/ledger.js';
import type { PixKeyType } from '../pix/index.js';
import { SqlParams, type Executor } from '../platform/db.js';
import type { SettledPayout } from '../providers/port/provider.port.js';
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

/** What the create's statement did: nothing when another withdrawal is in progress or the amount is over the limit. */
export interface Inserted {
  busy: boolean;
  row: WithdrawalRow | null;
}

/**
 * A withdrawal's create in ONE statement (docs/performance.md): unless the merchant has one PENDING or PROCESSING
 * (read first only for the order of checks; the partial unique index is the guarantee) or `withinLimit` is
 * false, the row, its reservation (`reserve`, over the inserted row) and, with `job`, its processing job. A
 * reservation that `available` cannot cover fails the whole statement (INSUFFICIENT_BALANCE, postingError).
 */
export async function insertWithdrawal(
  db: Executor, w: NewWithdrawal, o: { withinLimit: boolean; reserve: Posting; job: { task: string; key: string } | null },
): Promise<Inserted> {
  const p = new SqlParams();
  const merchant = p.add(w.merchant_id);
  const job = o.job
    ? `, job AS (SELECT graphile_worker.add_job(${p.add(o.job.task)}, json_build_object('withdrawalId', ins.id), job_key => ${p.add(o.job.key)},
         max_attempts => 25) FROM ins)`
    : '';
  const rows = await queryPosting<WithdrawalRow & { busy: boolean }>(db, o.reserve,
    `WITH busy AS (SELECT 1 FROM withdrawals WHERE merchant_id = ${merchant} AND status IN ('PENDING', 'PROCESSING') LIMIT 1),
     ins AS (
       INSERT INTO withdrawals (id, merchant_id, amount, fee, pix_key, pix_key_type, description, tax_id, callback_url)
       SELECT ${p.add(w.id)}::text, ${merchant}::text, ${p.add(w.amount)}::bigint, ${p.add(w.fee)}::bigint, ${p.add(w.pix_key)}::text,
         ${p.add(w.pix_key_type)}::text, ${p.add(w.description)}::text, ${p.add(w.tax_id)}::text, ${p.add(w.callback_url)}::text
       WHERE NOT EXISTS (SELECT 1 FROM busy) AND ${p.add(o.withinLimit)}::boolean
       RETURNING *),
     posting AS (${postingSql(o.reserve, p, 'ins')})${job}
     SELECT EXISTS (SELECT 1 FROM busy) AS busy, (SELECT count(*) FROM posting)::int AS posted${o.job ? ', (SELECT count(*) FROM job)::int AS jobs' : ''}, ins.*
     FROM (SELECT 1) one LEFT JOIN ins ON true`,
    p.values,
  );
  const { busy, posted, ...row } = rows[0]!;
  if (!posted) return { busy, row: null };
  delete (row as { jobs?: number }).jobs;
  return { busy, row: row as WithdrawalRow };
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

/** For the worker and the provider's reports (never reachable by a merchant): the row as it is, unlocked. */
export async function selectWithdrawal(db: Executor, id: string): Promise<WithdrawalRow | undefined> {
  const { rows } = await db.query<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = $1', [id]);
  return rows[0];
}

/**
 * A withdrawal never sent (PENDING: no release ever sends one before PROCESSING commits) taken to PROCESSING
 * with its first send recorded, in one statement committed before the call (docs/contract/psp.md#payout-jobs);
 * undefined when it is no longer PENDING.
 */
export async function startFirstSend(db: Executor, id: string): Promise<WithdrawalRow | undefined> {
  const { rows } = await db.query<WithdrawalRow>(
    `UPDATE withdrawals SET status = 'PROCESSING', payout_sends = 1, payout_sent_at = now_ms(), updated_at = now_ms()
     WHERE id = $1 AND status = 'PENDING' AND payout_sends = 0 RETURNING *`,
    [id],
  );
  return rows[0];
}

/**
 * A PROCESSING withdrawal's result in ONE statement: its state, its ledger posting and its event (`event`,
 * eventCtes over `done`, completedAt left to SQL) with the event's deliveries; undefined, writing nothing,
 * when it is no longer PROCESSING. Run alone it is its own transaction; in a caller's, it joins it.
 */
export async function settleWithdrawal(
  db: Executor, id: string, result: SettledPayout, o: { event: { render(params: SqlParams): string }; posting: Posting },
): Promise<WithdrawalRow | undefined> {
  const p = new SqlParams();
  const completed = result.status === 'COMPLETED';
  const rows = await queryPosting<WithdrawalRow & { due: number }>(db, o.posting,
    `WITH done AS (
       UPDATE withdrawals SET status = ${p.add(result.status)}::text, end2end_id = ${p.add(completed ? result.endToEndId : null)}::text,
         failed_reason = ${p.add(completed ? null : result.reason)}::text, completed_at = CASE WHEN ${p.add(completed)}::boolean THEN now_ms() END,
         updated_at = now_ms()
       WHERE id = ${p.add(id)} AND status = 'PROCESSING' RETURNING *),
     ${o.event.render(p)},
     posting AS (${postingSql(o.posting, p, 'done')})
     SELECT done.*, (SELECT due FROM fanout) AS due, (SELECT count(*) FROM posting)::int AS posted FROM done`,
    p.values,
  );
  if (!rows[0]) return undefined;
  const { due, posted: _posted, ...row } = rows[0];
  deliveriesDue(db, due);
  return row as WithdrawalRow;
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
