import { createCheckout } from '../checkouts/checkout.service.js';
import type { Checkout, Item } from '../checkouts/object/checkout.schemas.js';
import { cartAmount } from '../checkouts/checkout.rules.js';
import { insertCustomer, selectPayerCustomer } from '../customers/customer.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { isUniqueViolation, type Executor } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { readPayer, type Payer } from './link-payer.rules.js';
import { hitPaymentLink, selectLinkPayments, type PaymentLinkRow } from './payment-link.sql.js';
import { findLinkWithMerchant } from './payment-link.service.js';

/** docs/contract/checkouts.md#link-page: checkouts from one client address for one link, per clock minute. */
export const LINK_CHECKOUTS_PER_MINUTE = 10;

export type Unavailable = 'inactive' | 'ended' | 'soldOut';

/** INVALID_STATE: the link makes no checkout now; `reason` tells the page what to say. */
export class LinkUnavailable extends AppError {
  constructor(readonly reason: Unavailable) {
    super('INVALID_STATE', {
      inactive: 'Payment link is INACTIVE',
      ended: 'Payment link is past its activeUntil',
      soldOut: 'Payment link has reached its maxPayments',
    }[reason]);
  }
}

export class LinkRateLimited extends AppError {
  constructor(readonly retryAfter: number) {
    super('RATE_LIMITED', `At most ${LINK_CHECKOUTS_PER_MINUTE} checkouts a minute from one address for one link; retry in ${retryAfter} seconds`);
  }
}

/**
 * Whether the link makes a checkout now (docs/contract/checkouts.md#max-payments): INACTIVE, past activeUntil, or
 * maxPayments paid checkouts reached. Open checkouts hold no place: the contract counts payments only.
 */
export async function unavailability(db: Executor, link: PaymentLinkRow): Promise<Unavailable | null> {
  if (!link.active) return 'inactive';
  if (link.active_until && link.active_until.getTime() <= Date.now()) return 'ended';
  if (link.max_payments === null) return null;
  return (await selectLinkPayments(db, link.id, link.merchant_id)) >= link.max_payments ? 'soldOut' : null;
}

/** The line(s) the checkout bills: the link's cart, or one line named after the link for its (or the payer's) amount. */
const linkItems = (link: PaymentLinkRow, amount: number): Item[] => link.items ?? [{ name: link.name, quantity: 1, unitPrice: amount }];

/** The merchant's customer for this payer: found by taxId, else by e-mail; made when none (a customer needs an e-mail). */
async function payerCustomer(rt: Runtime, merchantId: string, payer: Payer): Promise<string | undefined> {
  if (!payer.taxId && !payer.email) return undefined;
  const found = await selectPayerCustomer(rt.pool, merchantId, payer);
  if (found || !payer.email) return found?.id;
  try {
    const row = await insertCustomer(rt.pool, {
      id: newId('cust'), merchant_id: merchantId, email: payer.email, name: payer.name, tax_id: payer.taxId, phone: payer.phone,
    });
    return row.id;
  } catch (err) {
    // A concurrent payer with the same taxId made it first: theirs is this payer's customer too.
    if (isUniqueViolation(err)) return (await selectPayerCustomer(rt.pool, merchantId, payer))?.id;
    throw err;
  }
}

/**
 * A payer starts a checkout from a link (POST /l/{id}, POST /l/{id}/checkouts). Order: the link exists (404) → it is
 * available (INVALID_STATE) → the payer's input (VALIDATION_ERROR, every field) → the address's limit (RATE_LIMITED)
 * → the customer → the checkout, whose charge transaction locks the link and checks its limits again.
 */
export async function startLinkCheckout(rt: Runtime, linkId: string, input: Parameters<typeof readPayer>[1], address: string): Promise<Checkout> {
  const found = await findLinkWithMerchant(rt, linkId);
  if (!found || found.merchant.suspended) throw notFound('Payment link');
  const { link, merchant } = found;
  const reason = await unavailability(rt.pool, link);
  if (reason) throw new LinkUnavailable(reason);
  const payer = readPayer(link, input, link.items ? cartAmount(link.items) : link.amount ?? 0);
  const { hits, retry_after } = await hitPaymentLink(rt.pool, link.id, address);
  if (hits > LINK_CHECKOUTS_PER_MINUTE) throw new LinkRateLimited(Math.max(1, retry_after));
  return checkoutFor(rt, merchant, link, payer);
}

async function checkoutFor(rt: Runtime, merchant: MerchantRow, link: PaymentLinkRow, payer: Payer): Promise<Checkout> {
  const customerId = await payerCustomer(rt, merchant.id, payer);
  const input = {
    items: linkItems(link, payer.amount), customerId, description: link.description ?? undefined,
    completionUrl: link.completion_url ?? undefined, expiresIn: link.checkout_expires_in, split: link.split,
  };
  return createCheckout(rt, merchant, input, undefined, { paymentLinkId: link.id });
}
