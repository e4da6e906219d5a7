import { createCharge } from '../charges/charge.service.js';
import { assertCanCharge, checkTicket } from '../charges/charge.rules.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { withTransaction, type TransactionHook } from '../platform/db.js';
import { notFound } from '../platform/errors.js';
import type { Claimable } from '../platform/http/idempotency-claim.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import { refundIn } from '../refunds/refund.service.js';
import type { Runtime } from '../runtime.js';
import { cartAmount, cartLines, checkMetadata, checkPageUrl } from './checkout.rules.js';
import type { CheckoutCreate, CheckoutListFilters } from './checkout.schemas.js';
import type { Checkout } from './object/checkout.schemas.js';
import { insertCheckout, listCheckoutsQuery, selectCheckoutChargeId, type CheckoutViewRow } from './object/checkout.sql.js';
import { loadCheckout, payPageUrl, toCheckout } from './object/checkout.view.js';

const DEFAULT_EXPIRES_IN = 86_400;

export interface CheckoutOrigin {
  paymentLinkId: string;
}

/**
 * POST /checkouts (docs/contract/checkouts.md#checkouts): a cart and the one ordinary charge that pays it, made by the
 * charge create itself — its checks, its provider call outside any transaction, its Idempotency-Key claim — and
 * the checkout written in the charge's transaction. The QR image the create drew is kept for the payment page.
 */
export async function createCheckout(
  rt: Runtime, merchant: MerchantRow, input: CheckoutCreate, idempotency?: Claimable, origin?: CheckoutOrigin,
): Promise<Checkout> {
  assertCanCharge(merchant); // 403 before any 400 of the rest, as a charge create orders them
  const amount = cartAmount(input.items);
  checkTicket(merchant, amount, 'items');
  checkMetadata(input.metadata);
  checkPageUrl('returnUrl', input.returnUrl);
  checkPageUrl('completionUrl', input.completionUrl);
  const items = cartLines(input.items);
  const id = newId('chk');
  const charge = {
    method: 'PIX' as const, amount, description: input.description, customerId: input.customerId,
    expiresIn: input.expiresIn ?? DEFAULT_EXPIRES_IN, split: input.split,
  };
  return createCharge(rt, merchant, charge, idempotency, {
    checkoutId: id,
    write: async (tx, made) => {
      await insertCheckout(tx, {
        id, merchant_id: merchant.id, charge_id: made.id, amount, items, external_id: input.externalId ?? null,
        metadata: input.metadata ?? null, return_url: input.returnUrl ?? null, completion_url: input.completionUrl ?? null,
        payment_link_id: origin?.paymentLinkId ?? null, qr_png: made.imageBase64,
      });
      const { phone: _phone, ...customer } = made.customer ?? {};
      return {
        id, status: made.status, amount, items, description: made.description, externalId: input.externalId ?? null,
        metadata: input.metadata ?? null, ...(made.customer && { customer: customer as Checkout['customer'] }),
        url: payPageUrl(rt.config.publicUrl, id), returnUrl: input.returnUrl ?? null, completionUrl: input.completionUrl ?? null,
        paymentLinkId: origin?.paymentLinkId ?? null, chargeId: made.id, brCode: made.brCode, createdAt: made.createdAt,
        expiresAt: made.expiresAt, paidAt: null,
      };
    },
  });
}

export async function getCheckout(rt: Runtime, merchantId: string, id: string): Promise<Checkout> {
  const found = await loadCheckout(rt.pool, rt.config.publicUrl, id, merchantId);
  if (!found) throw notFound('Checkout');
  return found.checkout;
}

export async function listCheckouts(rt: Runtime, merchantId: string, filters: CheckoutListFilters): Promise<Page<Checkout>> {
  const { status, externalId, paymentLinkId, ...page } = filters;
  const scope = { merchantId, list: 'checkouts', status, externalId, paymentLinkId };
  const query = listCheckoutsQuery(merchantId, { status, externalId, paymentLinkId });
  const result = await keysetPage<CheckoutViewRow>(rt.pool, rt.cursors, scope, query, page as PageRequest);
  return { items: result.items.map((row) => toCheckout(row, rt.config.publicUrl, { phone: false })), pagination: result.pagination };
}

/**
 * POST /checkouts/{id}/refund: the refund of its charge, by the one refund path (docs/contract/checkouts.md#checkouts) —
 * the same refund as /transparents/refund of that charge, with its rules and errors; answers the checkout.
 */
export async function refundCheckout(rt: Runtime, merchantId: string, id: string, hook?: TransactionHook<Checkout>): Promise<Checkout> {
  return withTransaction(rt.pool, async (tx) => {
    const chargeId = await selectCheckoutChargeId(tx, id, merchantId);
    if (!chargeId) throw notFound('Checkout');
    await refundIn(tx, merchantId, chargeId);
    return (await loadCheckout(tx, rt.config.publicUrl, id, merchantId))!.checkout;
  }, hook);
}
