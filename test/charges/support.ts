import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import type { TestContext } from '../support/context.js';

/** A CPF (11 digits) or CNPJ (14 digits) with valid check digits, random enough to be unique per test. */
export function validTaxId(kind: 'CPF' | 'CNPJ' = 'CPF'): string {
  const body = Array.from({ length: kind === 'CPF' ? 9 : 12 }, () => randomInt(10)).join('');
  const cycle = kind === 'CPF' ? 10 : 8;
  const digit = (s: string) => {
    let sum = 0;
    for (let k = 0; k < s.length; k++) sum += Number(s[s.length - 1 - k]) * (2 + (k % cycle));
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const first = digit(body);
  const full = body + first + digit(body + first);
  return /^(\d)\1*$/.test(full) ? validTaxId(kind) : full;
}

export const CHARGE_KEYS = [
  'amount', 'brCode', 'checkoutId', 'createdAt', 'description', 'end2endId', 'expiresAt', 'fee', 'id', 'netAmount', 'paidAt', 'split', 'status', 'txid', 'subscriptionId',
  'dueDate', 'daysAfterDue', 'fine', 'interest', 'discount', 'rebate', 'paidAmount', 'paidBreakdown',
];
export const CHECK_KEYS = [...CHARGE_KEYS, 'imageBase64', 'amountDue', 'breakdown'].sort();
export const REFUND_KEYS = ['amount', 'chargeId', 'completedAt', 'createdAt', 'failedReason', 'id', 'reason', 'status'];

export type Merchant = { id: string; key: string };

export async function createCharge(t: TestContext, m: Merchant, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000, ...body } });
  if (res.status !== 201) throw new Error(`charge create failed: ${res.raw}`);
  return res.body.data as Record<string, any>;
}

export async function pay(t: TestContext, chargeId: string) {
  const res = await t.admin('POST', `/admin/simulator/charges/${chargeId}/pay`);
  if (res.status !== 200) throw new Error(`pay failed: ${res.raw}`);
  return res.body.data as Record<string, any>;
}

export async function balance(t: TestContext, m: Merchant) {
  const res = await t.request('GET', '/me/balance', { key: m.key });
  expect(res.status).toBe(200);
  return res.body.data as { available: number; pending: number; blocked: number };
}

export async function check(t: TestContext, m: Merchant, id: string) {
  const res = await t.request('GET', `/transparents/check?id=${id}`, { key: m.key });
  expect(res.status).toBe(200);
  return res.body.data as Record<string, any>;
}

/** Events recorded for a merchant, oldest first. */
export async function events(t: TestContext, merchantId: string, type?: string) {
  const { rows } = await t.pool.query<{ type: string; data: any }>(
    `SELECT type, body::jsonb -> 'data' AS data FROM events WHERE merchant_id = $1 AND ($2::text IS NULL OR type = $2) ORDER BY created_at, id`,
    [merchantId, type ?? null],
  );
  return rows;
}

export function expectError(res: { status: number; body: any }, status: number, error: string, message?: string) {
  expect({ status: res.status, error: res.body.error, success: res.body.success }).toEqual({ status, error, success: false });
  if (message !== undefined) expect(res.body.message).toBe(message);
}
