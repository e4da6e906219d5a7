import { expect } from 'vitest';
import type { TestContext } from '../support/context.js';

export type Merchant = { id: string; key: string };

export const CHECKOUT_KEYS = [
  'amount', 'brCode', 'chargeId', 'completionUrl', 'createdAt', 'description', 'expiresAt', 'externalId', 'id', 'items', 'metadata',
  'paidAt', 'paymentLinkId', 'returnUrl', 'status', 'url',
];

/** A 1×1 PNG as a data URL: the smallest logo the branding takes. */
export const LOGO_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const cart = [{ name: 'Camiseta', quantity: 2, unitPrice: 4990 }, { name: 'Frete', quantity: 1, unitPrice: 1500 }];

export async function createCheckout(t: TestContext, m: Merchant, body: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const res = await t.request('POST', '/checkouts', { key: m.key, body: { items: cart, ...body }, headers });
  if (res.status !== 201) throw new Error(`checkout create failed: ${res.raw}`);
  return res.body.data as Record<string, any>;
}

export async function getCheckout(t: TestContext, m: Merchant, id: string) {
  const res = await t.request('GET', `/checkouts/${id}`, { key: m.key });
  expect(res.status).toBe(200);
  return res.body.data as Record<string, any>;
}

export async function createLink(t: TestContext, m: Merchant, body: Record<string, unknown>) {
  const res = await t.request('POST', '/payment-links', { key: m.key, body: { name: 'Curso de pão', ...body } });
  if (res.status !== 201) throw new Error(`link create failed: ${res.raw}`);
  return res.body.data as Record<string, any>;
}
