import type { NewEvent } from '../../events/event.sql.js';
import type { Executor } from '../../platform/db.js';
import type { Checkout, CheckoutStatus } from './checkout.schemas.js';
import { selectCheckoutView, type CheckoutViewRow } from './checkout.sql.js';

/** Where a payer pays it: `<PUBLIC_URL>/pay/<id>` (docs/contract/checkouts.md#checkout-object). */
export const payPageUrl = (publicUrl: string, id: string) => `${publicUrl}/pay/${id}`;

/**
 * The checkout as the API shows it (docs/contract/checkouts.md#checkout-object): `customer` as on charges, absent
 * when none; `phone` where `check` shows it (the detail, the refund answer, events), not in lists or the create answer.
 */
export function toCheckout(row: CheckoutViewRow, publicUrl: string, opts: { phone: boolean }): Checkout {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    items: row.items,
    description: row.description,
    externalId: row.external_id,
    metadata: row.metadata,
    ...(row.cu_id && {
      customer: {
        id: row.cu_id, name: row.cu_name, taxId: row.cu_tax_id, email: row.cu_email!, ...(opts.phone && { phone: row.cu_phone }),
      },
    }),
    url: payPageUrl(publicUrl, row.id),
    returnUrl: row.return_url,
    completionUrl: row.completion_url,
    paymentLinkId: row.payment_link_id,
    chargeId: row.charge_id,
    brCode: row.br_code,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
  };
}

/** The checkout with its merchant id (events), as GET /checkouts/{id} shows it. */
export async function loadCheckout(db: Executor, publicUrl: string, id: string, merchantId: string | null = null) {
  const row = await selectCheckoutView(db, id, merchantId);
  return row && { merchantId: row.merchant_id, checkout: toCheckout(row, publicUrl, { phone: true }) };
}

/**
 * CHECKOUT_PAID / CHECKOUT_REFUNDED of the checkout that owns `charge`, to emit in the transaction (and right after
 * the charge's own event) that paid or refunded it; none, and no read, for a charge without a checkout
 * (docs/contract/checkouts.md#checkout-events). `data` is the checkout as GET /checkouts/{id} shows it after the
 * change: its status and paidAt are its charge's, taken from `charge` as the change leaves it — so a read made
 * before the change (a payment is one statement after one read, charges/charge-payment.service.ts) shows it after.
 */
export async function checkoutEventsOf(
  db: Executor, publicUrl: string, charge: { checkoutId: string | null; status: CheckoutStatus; paidAt: string | null },
  type: 'CHECKOUT_PAID' | 'CHECKOUT_REFUNDED',
): Promise<NewEvent[]> {
  if (!charge.checkoutId) return [];
  const row = (await selectCheckoutView(db, charge.checkoutId, null))!;
  const after = { ...row, status: charge.status, paid_at: charge.paidAt === null ? null : new Date(charge.paidAt) };
  return [{ merchantId: row.merchant_id, type, data: toCheckout(after, publicUrl, { phone: true }) }];
}
