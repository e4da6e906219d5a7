import { lockCharge, selectSplits, setChargeStatus } from '../charges/charge.sql.js';
import type { Charge } from '../charges/charge.schemas.js';
import { loadCharge } from '../charges/charge.view.js';
import { checkoutEventsOf } from '../checkouts/object/checkout.view.js';
import { emitEvents } from '../events/event.sql.js';
import { withTransaction, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { enqueue, runExclusive, type EnqueueOptions } from '../platform/jobs.js';
import { askOrSend } from '../providers/port/payout-send.service.js';
import { markSeen } from '../providers/port/payout-send.sql.js';
import type { RefundOutcome } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import { postRefundReversal, postRefundSettled } from './refund.ledger.js';
import { completeRefund, failRefund, enqueuePendingRefundRequests, selectPendingRefundRequest, selectRefund } from './refund.sql.js';

export const REQUEST_TASK = 'refunds.request';
const REQUEST_KEY_PREFIX = 'refund-request:';
export const requestJob = (refundId: string): EnqueueOptions => ({ jobKey: `${REQUEST_KEY_PREFIX}${refundId}` });

const DEFAULT_FAILED_REASON = 'The provider could not return the payment';

export interface SettleOptions {
  /** The simulator's controls answer INVALID_STATE for a refund that is no longer PENDING. */
  onlyPending?: boolean;
}

/**
 * The one entry point of a refund's result from the provider, idempotent by refund id: a settled
 * refund ignores a second outcome. COMPLETED: the money leaves in-transit for the payer,
 * REFUND_COMPLETED (and its checkout's CHECKOUT_REFUNDED). FAILED: every debit is reversed, the charge returns to PAID, REFUND_FAILED.
 * Answers the charge as check shows it, without the image.
 */
export async function settleRefund(rt: Runtime, refundId: string, outcome: RefundOutcome, opts: SettleOptions = {}): Promise<Charge> {
  return (await settle(rt, refundId, outcome, opts)).charge;
}

/** settleRefund, which with `guard` settles only if the guard holds once the charge and refund are locked; says whether it settled. */
async function settle(
  rt: Runtime, refundId: string, outcome: RefundOutcome, opts: SettleOptions & { guard?: (tx: Tx) => Promise<boolean> },
): Promise<{ charge: Charge; settled: boolean }> {
  return withTransaction(rt.pool, async (tx) => {
    const found = await selectRefund(tx, refundId);
    if (!found) throw notFound('Refund');
    await lockCharge(tx, 'id', found.charge_id);
    const refund = (await selectRefund(tx, refundId, true))!;
    if (refund.status !== 'PENDING' || (opts.guard && !(await opts.guard(tx)))) {
      if (opts.onlyPending) throw new AppError('INVALID_STATE', `Refund is ${refund.status}; only a PENDING refund can be settled`);
      return { charge: (await loadCharge(tx, refund.charge_id))!, settled: false };
    }
    if (outcome.status === 'COMPLETED') {
      await completeRefund(tx, refund.id);
      await postRefundSettled(tx, refund);
    } else {
      await failRefund(tx, refund.id, outcome.reason || DEFAULT_FAILED_REASON);
      await postRefundReversal(tx, refund, await selectSplits(tx, refund.charge_id));
      await setChargeStatus(tx, refund.charge_id, 'PAID');
    }
    const charge = (await loadCharge(tx, refund.charge_id))!;
    await emitEvents(tx, outcome.status === 'COMPLETED'
      ? [{ merchantId: refund.merchant_id, type: 'REFUND_COMPLETED', data: charge }, ...(await checkoutEventsOf(tx, rt.config.publicUrl, charge, 'CHECKOUT_REFUNDED'))]
      : [{ merchantId: refund.merchant_id, type: 'REFUND_FAILED', data: charge }]);
    return { charge, settled: true };
  });
}

/** While the PSP's word stays out (a refused resend after an uncertain send), the refund job looks again after this. */
const ASK_AGAIN_AFTER_MS = 60_000;
const NOT_MADE = 'The PSP has no record of the devolução';

/**
 * The refund job: gets the devolução made at the provider, one run per refund at a time
 * (docs/contract/psp.md#payout-jobs), through the one send rule of every payout (askOrSend): asked about
 * first, sent only when the PSP does not know it, each send recorded before it is made. A refusal of its
 * first, certain send fails the refund (REFUND_FAILED, every debit back); after an uncertain send only the
 * PSP's own word decides. A settled refund is left alone, so a rerun is harmless.
 */
export async function requestProviderRefund(rt: Runtime, refundId: string): Promise<void> {
  await runExclusive(rt.pool, requestJob(refundId).jobKey!, async () => {
    const pending = await selectPendingRefundRequest(rt.pool, refundId);
    if (!pending) return;
    const input = { refundId, chargeId: pending.charge_id, endToEndId: pending.end2end_id, amount: pending.amount };
    const run = await askOrSend(rt.pool, {
      kind: 'refund', key: refundId, notMadeReason: NOT_MADE,
      ask: () => rt.provider.getRefund(input),
      send: () => rt.provider.sendRefund(input),
      fail: async (reason, guard) => (await settle(rt, refundId, { status: 'FAILED', reason }, { guard })).settled,
    });
    if (run.outcome === 'undecided') {
      await enqueue(rt.pool, REQUEST_TASK, { refundId }, { ...requestJob(refundId), runAt: new Date(Date.now() + ASK_AGAIN_AFTER_MS) });
    } else if (run.outcome === 'state') {
      // The PSP holds it: its result comes by notification or the provider's polling; its "not found" is lag from now on.
      if (run.state.status === 'PROCESSING') await markSeen(rt.pool, 'refund', refundId);
      else await settleRefund(rt, refundId, run.state);
    }
  });
}

/** Worker-start sweep: a PENDING refund whose job was lost is asked for again (the provider dedupes by refund id). */
export async function recoverPendingRefunds(rt: Runtime): Promise<void> {
  await enqueuePendingRefundRequests(rt.pool, { task: REQUEST_TASK, keyPrefix: REQUEST_KEY_PREFIX });
}
