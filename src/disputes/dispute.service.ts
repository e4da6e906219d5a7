import { lockCharge, setChargeStatus } from '../charges/charge.sql.js';
import { loadCharge } from '../charges/charge.view.js';
import { checkoutEventsOf } from '../checkouts/object/checkout.view.js';
import { emitEvents } from '../events/event.sql.js';
import { lockBalance } from '../ledger/ledger.js';
import { withTransaction } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { insertRefund } from '../refunds/refund.sql.js';
import type { Runtime } from '../runtime.js';
import { postDisputeBlock, postDisputeRelease, postDisputeReturn } from './dispute.ledger.js';
import type { Dispute, DisputeOutcome } from './dispute.schemas.js';
import { insertDispute, resolveDisputeRow, selectDispute, type DisputeRow } from './dispute.sql.js';

const toDispute = (d: DisputeRow): Dispute => ({
  id: d.id, chargeId: d.charge_id, status: d.status, ...(d.outcome && { outcome: d.outcome }), blockedAmount: d.blocked_amount,
});

/** A real PSP reports an infraction (MED) by the payment's endToEndId; the simulator by charge id. */
export type DisputedPayment = { chargeId: string } | { endToEndId: string };

/**
 * docs/contract/charges.md#disputes: an infraction on a PAID charge makes it DISPUTED and moves the merchant's net
 * share, capped at its available balance (read under the balance row's lock), to blocked.
 */
export async function openDispute(rt: Runtime, payment: DisputedPayment): Promise<Dispute> {
  return withTransaction(rt.pool, async (tx) => {
    const charge = 'chargeId' in payment ? await lockCharge(tx, 'id', payment.chargeId) : await lockCharge(tx, 'end2end_id', payment.endToEndId);
    if (!charge) throw notFound('Charge');
    if (charge.effective_status !== 'PAID') throw new AppError('INVALID_STATE', `Charge is ${charge.effective_status}; only a PAID charge can be disputed`);
    const available = await lockBalance(tx, charge.merchant_id, 'available');
    const dispute = await insertDispute(tx, {
      id: newId('dsp'), merchant_id: charge.merchant_id, charge_id: charge.id, blocked_amount: Math.min(charge.net_amount, available),
    });
    await postDisputeBlock(tx, dispute);
    await setChargeStatus(tx, charge.id, 'DISPUTED');
    return toDispute(dispute);
  });
}

/**
 * REJECTED: the block is lifted and the charge is PAID again. ACCEPTED: the blocked amount returns to
 * the payer, recorded as a COMPLETED refund with reason DISPUTE; the charge is REFUNDED and
 * REFUND_COMPLETED (and its checkout's CHECKOUT_REFUNDED) is emitted. A dispute resolves once: a second resolve is INVALID_STATE.
 */
export async function resolveDispute(rt: Runtime, disputeId: string, outcome: DisputeOutcome): Promise<Dispute> {
  return withTransaction(rt.pool, async (tx) => {
    const found = await selectDispute(tx, disputeId);
    if (!found) throw notFound('Dispute');
    await lockCharge(tx, 'id', found.charge_id);
    const open = (await selectDispute(tx, disputeId, true))!;
    if (open.status !== 'OPEN') throw new AppError('INVALID_STATE', 'Dispute is already resolved');
    const resolved = await resolveDisputeRow(tx, disputeId, outcome);
    if (outcome === 'REJECTED') {
      await postDisputeRelease(tx, open);
      await setChargeStatus(tx, open.charge_id, 'PAID');
    } else {
      await postDisputeReturn(tx, open);
      await insertRefund(tx, {
        id: newId('ref'), merchant_id: open.merchant_id, charge_id: open.charge_id, amount: open.blocked_amount,
        merchant_debit: open.blocked_amount, status: 'COMPLETED', reason: 'DISPUTE',
      });
      await setChargeStatus(tx, open.charge_id, 'REFUNDED');
      const charge = (await loadCharge(tx, open.charge_id))!;
      await emitEvents(tx, [
        { merchantId: open.merchant_id, type: 'REFUND_COMPLETED', data: charge },
        ...(await checkoutEventsOf(tx, rt.config.publicUrl, charge, 'CHECKOUT_REFUNDED')),
      ]);
    }
    return toDispute(resolved);
  });
}
