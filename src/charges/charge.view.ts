import { saoPauloDate } from '../calendar/index.js';
import { qrPngDataUrl } from '../pix/index.js';
import type { Executor } from '../platform/db.js';
import type { CustomerRow } from '../customers/customer.sql.js';
import type { Attempt, Charge, ChargeWithImage, Refund, SplitEntry } from './charge.schemas.js';
import type { InsertedCharge } from './charge.sql.js';
import { selectChargeView, type ChargeViewRow } from './charge-view.sql.js';
import { termsOfCharge } from './charge-due-date.rules.js';
import { amountDue } from './due-date.rules.js';

function toRefund(row: ChargeViewRow): Refund | null {
  if (!row.r_id) return null;
  return {
    id: row.r_id, chargeId: row.id, amount: row.r_amount!, status: row.r_status!, reason: row.r_reason!,
    failedReason: row.r_failed_reason, createdAt: row.r_created_at!.toISOString(), completedAt: row.r_completed_at?.toISOString() ?? null,
  };
}

/**
 * A subscription cycle's charge (docs/contract/subscriptions.md#cycle-charges): its failed debit attempts as recorded,
 * then the one that paid it (the payment itself: its São Paulo day and end-to-end id); and once EXPIRED, why —
 * the recorded reason, else the last failed attempt's outcome, else that no debit was made (`NO_DEBIT`). Null for
 * every other charge (its view row has no cycle, so no attempts).
 */
function cycleFields(row: ChargeViewRow): { attempts: Attempt[]; failedReason: string | null } | null {
  if (row.attempts === null) return null;
  const paid: Attempt[] = row.paid_at ? [{ date: saoPauloDate(row.paid_at), outcome: 'PAID', end2endId: row.end2end_id }] : [];
  const failedReason = row.status !== 'EXPIRED' ? null : row.failed_reason ?? row.attempts.at(-1)?.outcome ?? 'NO_DEBIT';
  return { attempts: [...row.attempts, ...paid], failedReason };
}

/**
 * The charge as the API shows it (docs/contract/charges.md#charge-object). fee, netAmount, paidAt and end2endId
 * are null until paid; `customer` and `refund` are absent when there is none. `phone` is shown by
 * check, the refund answer and events; list items and the create answer leave it out.
 */
export function toCharge(row: ChargeViewRow, opts: { phone: boolean }): Charge {
  const paid = row.paid_at !== null;
  const refund = toRefund(row);
  const charge: Omit<Charge, 'amountDue' | 'breakdown'> = {
    id: row.id,
    amount: row.amount,
    status: row.status,
    txid: row.txid,
    brCode: row.br_code,
    description: row.description,
    checkoutId: row.checkout_id,
    subscriptionId: row.subscription_id,
    ...cycleFields(row),
    split: row.split,
    ...(row.cu_id && {
      customer: {
        id: row.cu_id, name: row.cu_name, taxId: row.cu_tax_id, email: row.cu_email!, ...(opts.phone && { phone: row.cu_phone }),
      },
    }),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
    end2endId: row.end2end_id,
    fee: paid ? row.fee : null,
    netAmount: paid ? row.net_amount : null,
    ...(refund && { refund }),
    dueDate: row.due_date,
    daysAfterDue: row.days_after_due,
    fine: row.due_rules?.fine ?? null,
    interest: row.due_rules?.interest ?? null,
    discount: row.due_rules?.discount ?? null,
    rebate: row.due_rules?.rebate ?? null,
    paidAmount: row.paid_amount,
    paidBreakdown: row.paid_breakdown,
  };
  return { ...charge, ...amountDueToday(charge) };
}

/**
 * `amountDue` and `breakdown` as of today in São Paulo (docs/contract/due-date-charges.md#charge-object): a
 * due-date charge that can still be paid (PENDING, today ≤ its last day to pay); null on every other.
 */
function amountDueToday(charge: Omit<Charge, 'amountDue' | 'breakdown'>): Pick<Charge, 'amountDue' | 'breakdown'> {
  const terms = termsOfCharge(charge);
  const due = terms && charge.status === 'PENDING' ? amountDue(terms, saoPauloDate(new Date())) : null;
  return { amountDue: due?.amountDue ?? null, breakdown: due?.breakdown ?? null };
}

/**
 * The view row of a charge inserted in this transaction — what selectChargeView would read back, without
 * the round trip: no refund yet, its split entries as resolved, its customer as checked.
 */
export function insertedChargeView(
  row: InsertedCharge, split: SplitEntry[], customer: CustomerRow | undefined, cycle: { dueDate: string } | null = null,
): ChargeViewRow {
  return {
    ...row, split, ...(cycle && { due_date: cycle.dueDate }), attempts: cycle && [], failed_reason: null,
    cu_id: customer?.id ?? null, cu_name: customer?.name ?? null, cu_tax_id: customer?.tax_id ?? null,
    cu_email: customer?.email ?? null, cu_phone: customer?.phone ?? null,
    r_id: null, r_amount: null, r_status: null, r_reason: null, r_failed_reason: null, r_created_at: null, r_completed_at: null,
  };
}

/**
 * The QR image is rendered on demand for the answers that carry it, never stored. A subscription cycle's charge
 * has no code to scan (the payer's bank debits it): no image either.
 */
export const withImage = (charge: Charge): ChargeWithImage => ({ ...charge, imageBase64: charge.brCode ? qrPngDataUrl(charge.brCode) : '' });

/**
 * An answer with its image kept under an Idempotency-Key: without it (it is the brCode drawn, 2–4 KB), and
 * drawn again by withImage on a replay — so nothing of a charge is stored twice.
 */
export const imageNotStored = {
  redact: (data: unknown): Charge => {
    const { imageBase64: _image, ...charge } = data as ChargeWithImage;
    return charge;
  },
  restore: async (_merchantId: string, data: unknown): Promise<ChargeWithImage> => withImage(data as Charge),
};

/** The charge as `check` shows it minus the image: event data and the core functions' answer. */
export async function loadCharge(db: Executor, id: string, merchantId: string | null = null): Promise<Charge | undefined> {
  const row = await selectChargeView(db, id, merchantId);
  return row && toCharge(row, { phone: true });
}
