import { lockCharge, selectSplits, setChargeStatus } from '../charges/charge.sql.js';
import type { ChargeWithImage } from '../charges/charge.schemas.js';
import { loadCharge, withImage } from '../charges/charge.view.js';
import { isUniqueViolation, withTransaction, type TransactionHook, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { postRefund } from './refund.ledger.js';
import { insertRefund, LIVE_REFUND_INDEX } from './refund.sql.js';
import { REQUEST_TASK, requestJob } from './refund-settlement.service.js';

/**
 * POST /transparents/refund (docs/contract/charges.md#refunds): the whole amount of a PAID charge.
 * One transaction: lock the charge (two concurrent refunds serialise here; the second finds it
 * REFUNDED), record the refund, debit every party (all or nothing), mark the charge REFUNDED and
 * queue the provider request. The partial unique index backs the lock up.
 */
export async function refundCharge(rt: Runtime, merchantId: string, chargeId: string, hook?: TransactionHook<ChargeWithImage>): Promise<ChargeWithImage> {
  return withTransaction(rt.pool, async (tx) => {
    await refundIn(tx, merchantId, chargeId);
    return withImage((await loadCharge(tx, chargeId))!);
  }, hook);
}

/** The refund of a charge inside the caller's transaction: the one path of /transparents/refund and a checkout's refund. */
export async function refundIn(tx: Tx, merchantId: string, chargeId: string): Promise<void> {
  const charge = await lockCharge(tx, 'id', chargeId, merchantId);
  if (!charge) throw notFound('Charge');
  if (charge.effective_status !== 'PAID') {
    throw new AppError('INVALID_STATE', `Charge is ${charge.effective_status}; only a PAID charge can be refunded`);
  }
  const splits = await selectSplits(tx, charge.id);
  // A due-date charge returns what was paid, fine and interest included (docs/contract/due-date-charges.md#payment).
  const amount = charge.paid_amount ?? charge.amount;
  const refund = {
    id: newId('ref'), merchant_id: merchantId, charge_id: charge.id, amount,
    merchant_debit: amount - splits.reduce((sum, s) => sum + s.amount, 0), reason: 'MERCHANT' as const,
  };
  try {
    await insertRefund(tx, { ...refund, status: 'PENDING' });
  } catch (err) {
    if (isUniqueViolation(err, LIVE_REFUND_INDEX)) throw new AppError('INVALID_STATE', 'Charge is already refunded');
    throw err;
  }
  await postRefund(tx, refund, splits);
  await setChargeStatus(tx, charge.id, 'REFUNDED');
  await enqueue(tx, REQUEST_TASK, { refundId: refund.id }, requestJob(refund.id));
}
