import type { Charge } from '../charges/charge.schemas.js';
import type { NewEvent } from '../events/events.js';
import type { Tx } from '../platform/db.js';
import { loadCheckout } from './checkout.view.js';

/**
 * CHECKOUT_PAID / CHECKOUT_REFUNDED of the checkout that owns `charge`, to emit in the transaction (and right after
 * the charge's own event) that paid or refunded it; none, and no read, for a charge without a checkout
 * (docs/contract/checkouts.md#checkout-events). `data` is the checkout as GET /checkouts/{id} shows it.
 */
export async function checkoutEventsOf(tx: Tx, publicUrl: string, charge: Charge, type: 'CHECKOUT_PAID' | 'CHECKOUT_REFUNDED'): Promise<NewEvent[]> {
  if (!charge.checkoutId) return [];
  const found = (await loadCheckout(tx, publicUrl, charge.checkoutId))!;
  return [{ merchantId: found.merchantId, type, data: found.checkout }];
}
