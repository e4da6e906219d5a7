import { expect } from 'vitest';
import type { Reply, TestContext } from '../support/context.js';

/** ISO 8601 UTC with milliseconds (docs/contract/http.md#timestamps). */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** Opaque URL-safe id with its prefix (docs/contract/http.md#ids). */
export const idOf = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{8,}$`);

export type M = { id: string; key: string };

export const keys = (o: unknown) => Object.keys(o as object).sort();

/** The error envelope, exactly; with `message` the whole body is compared. */
export function expectError(res: Reply, status: number, error: string, message?: string): void {
  if (message === undefined) {
    expect({ status: res.status, error: res.body?.error, success: res.body?.success, keys: keys(res.body) })
      .toEqual({ status, error, success: false, keys: ['error', 'message', 'success'] });
    expect(typeof res.body.message).toBe('string');
  } else {
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error, message, success: false } });
  }
}

/** A success envelope with `status`; returns `data`. */
export function expectOk(res: Reply, status = 200): any {
  expect({ status: res.status, error: res.body?.error, success: res.body?.success }).toEqual({ status, error: null, success: true });
  return res.body.data;
}

export async function createCharge(t: TestContext, m: M, body: Record<string, unknown> = {}) {
  return expectOk(await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000, ...body } }), 201);
}

export async function pay(t: TestContext, chargeId: string) {
  return expectOk(await t.admin('POST', `/admin/simulator/charges/${chargeId}/pay`));
}

/** Credits `amount` to a merchant (with no charge fee) the way money arrives: a paid charge. */
export async function fund(t: TestContext, m: M, amount: number): Promise<void> {
  await pay(t, (await createCharge(t, m, { amount })).id);
}

export async function balance(t: TestContext, m: M) {
  return expectOk(await t.request('GET', '/me/balance', { key: m.key })) as { available: number; pending: number; blocked: number };
}

/** Charge fields in every shape (docs/contract/charges.md#charge-object); `customer`/`refund` only when there is one. */
export const CHARGE_BASE = [
  'amount', 'brCode', 'checkoutId', 'createdAt', 'description', 'end2endId', 'expiresAt', 'fee', 'id', 'netAmount', 'paidAt', 'split', 'status', 'txid', 'subscriptionId',
  // docs/contract/due-date-charges.md#charge-object: null on an immediate charge, present in every shape.
  'dueDate', 'daysAfterDue', 'fine', 'interest', 'discount', 'rebate', 'paidAmount', 'paidBreakdown',
];
/** What `check`-shaped answers add: the amount due today (docs/contract/due-date-charges.md#charge-object). */
export const AMOUNT_DUE = ['amountDue', 'breakdown'];
export const withKeys = (...extra: string[]) => [...CHARGE_BASE, ...extra].sort();
export const REFUND_KEYS = ['amount', 'chargeId', 'completedAt', 'createdAt', 'failedReason', 'id', 'reason', 'status'];
