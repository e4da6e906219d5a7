import { checkoutEventsOf } from '../checkouts/object/checkout.view.js';
import { emitEvents } from '../events/event.sql.js';
import { withTransaction, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import type { PaymentNotification } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import type { Charge } from './charge.schemas.js';
import { postPayment } from './charge.ledger.js';
import { lockCharge, markChargePaid, selectChargeIdByEndToEnd } from './charge.sql.js';
import { loadCharge } from './charge.view.js';

export interface ReceiveOptions {
  /** The simulator's payer bank refuses a code that is not PENDING (expired included): INVALID_STATE. */
  onlyPending?: boolean;
  /** An Idempotency-Key of a merchant's simulated payment: its answer commits with the payment. */
  hook?: TransactionHook<Charge>;
}

/**
 * The one entry point of a received PIX (a PSP webhook, the simulator's pay). Idempotent by
 * endToEndId: a notification delivered twice, even concurrently, credits once and answers the charge.
 * In ONE transaction: PAID with paidAt and end2endId, the ledger posting (merchant netAmount, each split
 * recipient its share, the platform its fee), CHARGE_PAID (and its checkout's CHECKOUT_PAID), and SPLIT_RECEIVED to each recipient.
 * A late payment of an EXPIRED charge is still credited: the money arrived (docs/contract/charges.md#late-payments).
 * A second, different PIX to a charge already paid is not credited here (left for reconciliation).
 */
export async function receivePayment(rt: Runtime, n: PaymentNotification, opts: ReceiveOptions = {}): Promise<Charge> {
  return withTransaction(rt.pool, async (tx) => {
    const known = await selectChargeIdByEndToEnd(tx, n.endToEndId);
    if (known) return (await loadCharge(tx, known))!;
    const charge = await lockCharge(tx, 'txid', n.txid);
    if (!charge) throw notFound('Charge');
    if (opts.onlyPending && charge.effective_status !== 'PENDING') {
      throw new AppError('INVALID_STATE', `Charge is ${charge.effective_status}; only a PENDING charge can be paid`);
    }
    // Under the lock: a concurrent duplicate has committed by now, and is seen here.
    if (charge.end2end_id !== null || (charge.status !== 'PENDING' && charge.status !== 'EXPIRED')) return (await loadCharge(tx, charge.id))!;
    if (n.amount !== charge.amount) throw validationError('amount', `must equal the charge amount (${charge.amount})`);
    await markChargePaid(tx, charge.id, {
      paidAt: n.paidAt, endToEndId: n.endToEndId, payerName: n.payer?.name ?? null, payerTaxId: n.payer?.taxId ?? null,
    });
    const paid = (await loadCharge(tx, charge.id))!;
    // The view carries the split entries in order: no separate read of charge_splits.
    const splits = paid.split.map((s) => ({ recipient_id: s.merchantId, amount: s.amount }));
    await emitEvents(tx, [
      { merchantId: charge.merchant_id, type: 'CHARGE_PAID', data: paid },
      // A checkout's charge only: one read, and CHECKOUT_PAID right after CHARGE_PAID (docs/contract/checkouts.md#checkout-events).
      ...(await checkoutEventsOf(tx, rt.config.publicUrl, paid, 'CHECKOUT_PAID')),
      ...splits.map((s) => ({
        merchantId: s.recipient_id, type: 'SPLIT_RECEIVED' as const,
        data: { chargeId: charge.id, merchantId: charge.merchant_id, amount: s.amount, paidAt: paid.paidAt },
      })),
    ]);
    // Last: the posting locks the merchants' balance rows until COMMIT, and every payment to the same
    // merchant waits for that lock — so nothing else runs while it is held (docs/performance.md).
    await postPayment(tx, charge, splits);
    return paid;
  }, opts.hook);
}
