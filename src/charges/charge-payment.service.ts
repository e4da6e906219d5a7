import { checkoutEventsOf } from '../checkouts/object/checkout.view.js';
import { eventCtes } from '../events/event.sql.js';
import { isRetryable, withStatement, withTransaction, type Executor, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import type { PaymentNotification } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import type { Charge } from './charge.schemas.js';
import { paymentPosting } from './charge.ledger.js';
import { dueDatePayment } from './charge-due-date.rules.js';
import { payCharge } from './charge.sql.js';
import { selectPayable } from './charge-view.sql.js';
import { loadCharge, toCharge } from './charge.view.js';

export interface ReceiveOptions {
  /** The simulator's payer bank refuses a code that is not PENDING (expired included): INVALID_STATE. */
  onlyPending?: boolean;
  /** An Idempotency-Key of a merchant's simulated payment: its answer commits with the payment. */
  hook?: TransactionHook<Charge>;
}

/**
 * A received PIX: which charge (a PSP names its txid; the simulator's payer, the charge id, scoped to the
 * merchant on a merchant's route), and what arrived. `amount` absent: the simulated payer pays what the charge asks.
 */
export type Payment = Omit<PaymentNotification, 'txid' | 'amount'> & {
  charge: { txid: string } | { id: string; merchantId: string | null };
  amount?: number;
  /** The simulated payer's day of payment (`YYYY-MM-DD`; a due-date charge's only: docs/contract/due-date-charges.md#simulator). */
  day?: string;
};

/** A read and a write: the write finds the charge as read, or the read is made again (bounded, against a livelock). */
const MAX_ROUNDS = 5;

/**
 * The one entry point of a received PIX (a PSP webhook, the simulator's pay). Idempotent by
 * endToEndId: a notification delivered twice, even concurrently, credits once and answers the charge.
 * In ONE statement (payCharge): PAID with paidAt and end2endId, the ledger posting (merchant netAmount, each
 * split recipient its share, the platform its fee), CHARGE_PAID (and its checkout's CHECKOUT_PAID), and
 * SPLIT_RECEIVED to each recipient, with their deliveries. Before it, one read of the charge as the API shows
 * it: the events' data is built from it here, by the one view (charge.view.ts), as the payment leaves it; the
 * statement pays only a charge still unpaid, the one state that read can have seen, else the read is made again.
 * A late payment of an EXPIRED charge is still credited: the money arrived (docs/contract/charges.md#late-payments).
 * A second, different PIX to a charge already paid is not credited here (left for reconciliation).
 */
export async function receivePayment(rt: Runtime, payment: Payment | PaymentNotification, opts: ReceiveOptions = {}): Promise<Charge> {
  const p: Payment = 'charge' in payment ? payment : { ...payment, charge: { txid: payment.txid } };
  // With an Idempotency-Key the answer commits with the payment: read and write in its transaction.
  if (opts.hook) return withTransaction(rt.pool, (tx) => pay(rt, p, opts, tx), opts.hook);
  return pay(rt, p, opts, null);
}

async function pay(rt: Runtime, p: Payment, opts: ReceiveOptions, tx: Executor | null): Promise<Charge> {
  const db = tx ?? rt.pool;
  for (let round = 1; ; round++) {
    const found = await selectPayable(db, p.charge, p.endToEndId);
    const row = found.charge;
    if (found.e2e_charge_id !== null) {
      // This PIX was credited already (a notification delivered twice): the charge it paid, as it is now.
      return row?.id === found.e2e_charge_id ? toCharge(row, { phone: true }) : (await loadCharge(db, found.e2e_charge_id))!;
    }
    if (!row) throw notFound('Charge');
    if (opts.onlyPending && row.status !== 'PENDING') {
      throw new AppError('INVALID_STATE', `Charge is ${row.status}; only a PENDING charge can be paid`);
    }
    if (row.end2end_id !== null || (row.status !== 'PENDING' && row.status !== 'EXPIRED')) return toCharge(row, { phone: true });
    // A due-date charge is credited what arrived, its fee taken from that (docs/contract/due-date-charges.md#payment).
    const due = dueDatePayment(row, p);
    const paidAt = due?.paidAt ?? p.paidAt;
    if (!due && (p.amount ?? row.amount) !== row.amount) throw validationError('amount', `must equal the charge amount (${row.amount})`);
    const money = due && { amount: due.paid.paidAmount, fee: due.paid.fee, net_amount: due.paid.netAmount };

    const paid = toCharge({
      ...row, status: 'PAID', paid_at: paidAt, end2end_id: p.endToEndId,
      ...(due && { fee: due.paid.fee, net_amount: due.paid.netAmount, paid_amount: due.paid.paidAmount, paid_breakdown: due.paid.paidBreakdown }),
    }, { phone: true });
    const splits = paid.split.map((s) => ({ recipient_id: s.merchantId, amount: s.amount }));
    const events = eventCtes([
      { merchantId: row.merchant_id, type: 'CHARGE_PAID', data: paid },
      // A checkout's charge only: one read, and CHECKOUT_PAID right after CHARGE_PAID (docs/contract/checkouts.md#checkout-events).
      ...(await checkoutEventsOf(db, rt.config.publicUrl, paid, 'CHECKOUT_PAID')),
      ...splits.map((s) => ({
        merchantId: s.recipient_id, type: 'SPLIT_RECEIVED' as const,
        data: { chargeId: row.id, merchantId: row.merchant_id, amount: s.amount, paidAt: paid.paidAt },
      })),
    ], { from: 'paid' });
    const write = (w: Executor) => payCharge(w, {
      chargeId: row.id, paidAt, endToEndId: p.endToEndId, payerName: p.payer?.name ?? null, payerTaxId: p.payer?.taxId ?? null,
      onlyPending: opts.onlyPending ?? false, events, posting: paymentPosting({ ...row, ...money }, splits), due: due?.paid ?? null,
    });
    try {
      if (await (tx ? write(tx) : withStatement(rt.pool, write))) return paid;
    } catch (err) {
      // Alone, the statement is its own transaction: a deadlock or serialization failure is retried here.
      if (tx || !isRetryable(err) || round >= MAX_ROUNDS) throw err;
      continue;
    }
    // Another payment (or, for the simulator's payer, the expiry) changed the charge since the read.
    if (round >= MAX_ROUNDS) throw new Error(`charge ${row.id}: payment kept racing another change`);
  }
}
