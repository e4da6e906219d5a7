import type { TestContext } from '../../support/context.js';
import { createCharge, pay, validTaxId } from '../../charges/support.js';
import { LOGO_PNG } from '../../checkouts/support.js';

/** One of everything a merchant owns, in the states the id-bearing routes care about. */
export interface MerchantObjects {
  merchant: { id: string; key: string; keyId: string };
  customerId: string;
  pendingChargeId: string;
  paidChargeId: string;
  refundedChargeId: string;
  refundId: string;
  disputedChargeId: string;
  disputeId: string;
  withdrawalId: string;
  endpointId: string;
  /** A checkout PENDING, and one PAID (the one its refund route accepts). */
  checkoutId: string;
  paidCheckoutId: string;
  /** A payment link whose page asks the payer for an amount and every customer field (an empty form is refused). */
  linkId: string;
  /** The store's logo (branding), served by Pixgate. */
  logoId: string;
  /** Subscriptions: one CREATED (QR), one ACTIVE with a fixed amount and its PENDING cycle charge, one ACTIVE variable one. */
  subscriptionId: string;
  activeSubscriptionId: string;
  cycleChargeId: string;
  variableSubscriptionId: string;
  /** A due date of the variable subscription's cycles not charged yet. */
  variableDueDate: string;
}

async function ok(res: Promise<{ status: number; body: any; raw: string }>, status: number, what: string): Promise<any> {
  const r = await res;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.raw}`);
  return r.body.data;
}

/**
 * A merchant with a customer, charges PENDING / PAID / REFUNDED (refund still PENDING) / DISPUTED, a PENDING
 * withdrawal, a webhook endpoint at `hookUrl`, checkouts PENDING / PAID, a payment link, a logo and subscriptions. Run with long
 * simulator delays so nothing settles on its own.
 */
export async function merchantWithEverything(t: TestContext, hookUrl: string): Promise<MerchantObjects> {
  const merchant = await t.merchant();
  const as = (method: string, url: string, body?: unknown) => t.request(method, url, { key: merchant.key, body });
  const endpoint = await ok(as('POST', '/webhooks', { url: hookUrl, events: ['CHARGE_CREATED', 'CHARGE_PAID', 'REFUND_COMPLETED'] }), 201, 'webhook');
  const customer = await ok(as('POST', '/customers', { email: 'owner@example.com', name: 'Owner', taxId: validTaxId() }), 201, 'customer');
  const pending = await createCharge(t, merchant, { customerId: customer.id, description: 'pending' });
  const paid = await createCharge(t, merchant, { amount: 50_000 });
  await pay(t, paid.id);
  const refunded = await createCharge(t, merchant, { amount: 2_000 });
  await pay(t, refunded.id);
  const refund = await ok(as('POST', `/transparents/refund?id=${refunded.id}`), 200, 'refund');
  const disputed = await createCharge(t, merchant, { amount: 3_000 });
  await pay(t, disputed.id);
  const dispute = await ok(t.admin('POST', `/admin/simulator/charges/${disputed.id}/dispute`), 200, 'dispute');
  const withdrawal = await ok(as('POST', '/withdrawals', { amount: 1_000, pixKey: 'payee@example.com', pixKeyType: 'EMAIL' }), 201, 'withdrawal');
  const items = [{ name: 'Camiseta', quantity: 2, unitPrice: 4_990 }];
  const checkout = await ok(as('POST', '/checkouts', { items, customerId: customer.id }), 201, 'checkout');
  const paidCheckout = await ok(as('POST', '/checkouts', { items }), 201, 'paid checkout');
  await pay(t, paidCheckout.chargeId);
  const link = await ok(as('POST', '/payment-links', {
    name: 'Doação', amountRange: { min: 500, max: 500_000 }, customerFields: ['name', 'email', 'taxId', 'phone'],
  }), 201, 'payment link');
  const branding = await ok(as('PUT', '/me/branding', { displayName: 'Loja', primaryColor: '#8a3b12', logo: LOGO_PNG }), 200, 'branding');
  const plan = { customerId: customer.id, frequency: 'MONTHLY', startDate: '2030-01-15', contract: 'Plano', journey: 'QR' };
  const subscription = await ok(as('POST', '/subscriptions', { ...plan, amount: 1_000 }), 201, 'subscription');
  const fixed = await ok(as('POST', '/subscriptions', { ...plan, amount: 1_000 }), 201, 'fixed subscription');
  await ok(t.admin('POST', `/admin/simulator/subscriptions/${fixed.id}/authorize`), 200, 'authorize');
  const cycleCharge = await ok(t.admin('POST', `/admin/simulator/subscriptions/${fixed.id}/next-cycle`), 200, 'next cycle');
  const variable = await ok(as('POST', '/subscriptions', { ...plan, minAmount: 1_000 }), 201, 'variable subscription');
  await ok(t.admin('POST', `/admin/simulator/subscriptions/${variable.id}/authorize`), 200, 'authorize variable');
  return {
    merchant, customerId: customer.id, pendingChargeId: pending.id, paidChargeId: paid.id, refundedChargeId: refunded.id,
    refundId: refund.refund.id, disputedChargeId: disputed.id, disputeId: dispute.id, withdrawalId: withdrawal.id, endpointId: endpoint.id,
    checkoutId: checkout.id, paidCheckoutId: paidCheckout.id, linkId: link.id, logoId: String(branding.logoUrl).split('/').pop()!,
    subscriptionId: subscription.id, activeSubscriptionId: fixed.id, cycleChargeId: cycleCharge.id, variableSubscriptionId: variable.id,
    variableDueDate: variable.nextDueDate,
  };
}

/** A `next` cursor of each of the merchant's lists (each list holds at least two items). */
export async function cursorsOf(t: TestContext, key: string, endpointId?: string): Promise<Record<string, string>> {
  const lists = ['/customers', '/transparents/list', '/withdrawals', '/webhooks', ...(endpointId ? [`/webhooks/${endpointId}/deliveries`] : [])];
  const out: Record<string, string> = {};
  for (const list of lists) {
    const res = await t.request('GET', `${list}?limit=1`, { key });
    const next = res.body?.data && res.body.pagination?.next;
    if (typeof next === 'string') out[list] = next;
  }
  return out;
}
