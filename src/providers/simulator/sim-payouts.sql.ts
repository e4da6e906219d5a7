import type { PixKeyType } from '../../pix/index.js';
import { UNFLUSHED_COMMIT, type Executor } from '../../platform/db.js';
import type { PayoutRequest, SettledPayout } from '../port/provider.port.js';

export interface SimPayoutRow {
  withdrawal_id: string;
  amount: number;
  pix_key: string;
  pix_key_type: PixKeyType;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  end_to_end_id: string | null;
  failed_reason: string | null;
  created_at: Date;
  settled_at: Date | null;
}

/** What the simulated network knows of a payout: who is paid and how much. */
export type SimPayoutKey = Pick<PayoutRequest, 'withdrawalId' | 'amount' | 'pixKey' | 'pixKeyType'>;

const settledValues = (s: SettledPayout) =>
  s.status === 'COMPLETED' ? ['COMPLETED', s.endToEndId, null] : ['FAILED', null, s.reason];

/**
 * Records a payout in PROCESSING, or already `settled`; undefined when one already exists for the withdrawal.
 * Its commit does not wait for the WAL flush: it is the simulated network's record, not Pixgate's money, and the
 * core's own record of the send (flushed before the call) and of its result (flushed after it) bracket it in
 * the WAL; a crash that loses it leaves a payout the core asks about and sends again, as with a real PSP's loss.
 */
export async function insertSimPayout(db: Executor, p: SimPayoutKey, settled?: SettledPayout): Promise<SimPayoutRow | undefined> {
  const { rows } = await db.query<SimPayoutRow>(
    `INSERT INTO sim_payouts (withdrawal_id, amount, pix_key, pix_key_type, status, end_to_end_id, failed_reason, settled_at)
     SELECT $1, $2, $3, $4, $5::text, $6, $7, CASE WHEN $5::text = 'PROCESSING' THEN NULL ELSE now_ms() END FROM (SELECT ${UNFLUSHED_COMMIT}) unflushed
     ON CONFLICT (withdrawal_id) DO NOTHING RETURNING *`,
    [p.withdrawalId, p.amount, p.pixKey, p.pixKeyType, ...(settled ? settledValues(settled) : ['PROCESSING', null, null])],
  );
  return rows[0];
}

export async function selectSimPayout(db: Executor, withdrawalId: string, forUpdate = false): Promise<SimPayoutRow | undefined> {
  const { rows } = await db.query<SimPayoutRow>(
    `SELECT * FROM sim_payouts WHERE withdrawal_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [withdrawalId],
  );
  return rows[0];
}

/**
 * Settles a payout that is still PROCESSING, recording it first when it was never sent (an operator
 * driving a withdrawal that was not picked up yet). Undefined when it had already settled.
 */
export async function settleSimPayoutRow(db: Executor, p: SimPayoutKey, s: SettledPayout): Promise<SimPayoutRow | undefined> {
  const { rows } = await db.query<SimPayoutRow>(
    `INSERT INTO sim_payouts (withdrawal_id, amount, pix_key, pix_key_type, status, end_to_end_id, failed_reason, settled_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now_ms())
     ON CONFLICT (withdrawal_id) DO UPDATE
       SET status = excluded.status, end_to_end_id = excluded.end_to_end_id, failed_reason = excluded.failed_reason, settled_at = now_ms()
       WHERE sim_payouts.status = 'PROCESSING'
     RETURNING *`,
    [p.withdrawalId, p.amount, p.pixKey, p.pixKeyType, ...settledValues(s)],
  );
  return rows[0];
}
