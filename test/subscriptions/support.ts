import { expect } from 'vitest';
import { addDays, saoPauloDate } from '../../src/calendar/index.js';
import type { TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { validTaxId, type Merchant } from '../charges/support.js';

export const today = () => saoPauloDate(new Date());
/** A start date `days` after today (São Paulo): at least 2 for a valid subscription. */
export const inDays = (days: number) => addDays(today(), days);

export const SUBSCRIPTION_KEYS = [
  'amount', 'authorizedAt', 'brCode', 'contract', 'createdAt', 'customer', 'description', 'endDate', 'endedAt', 'endedBy', 'firstCharge', 'frequency',
  'id', 'imageBase64', 'journey', 'minAmount', 'nextDueDate', 'retryPolicy', 'startDate', 'status',
].sort();

/** A customer with the name and tax id a payer needs. */
export async function payer(t: TestContext, m: Merchant, taxId = validTaxId()): Promise<string> {
  const res = await t.request('POST', '/customers', { key: m.key, body: { email: `payer-${taxId}@example.com`, name: 'Maria Pagadora', taxId } });
  if (res.status !== 201) throw new Error(`customer create failed: ${res.raw}`);
  return res.body.data.id;
}

export const createBody = (customerId: string, over: Record<string, unknown> = {}) => ({
  customerId, amount: 2_990, frequency: 'MONTHLY', startDate: inDays(3), contract: 'Plano mensal 123', description: 'Streaming', journey: 'QR', ...over,
});

export async function subscribe(t: TestContext, m: Merchant, customerId: string, over: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/subscriptions', { key: m.key, body: createBody(customerId, over) });
  if (res.status !== 201) throw new Error(`subscription create failed: ${res.raw}`);
  return res.body.data as Record<string, any>;
}

export async function sim(t: TestContext, path: string, body?: unknown) {
  const res = await t.admin('POST', `/admin/simulator${path}`, body);
  if (res.status !== 200) throw new Error(`simulator ${path}: ${res.status} ${res.raw}`);
  return res.body.data as Record<string, any>;
}

export const authorize = (t: TestContext, id: string) => sim(t, `/subscriptions/${id}/authorize`);
export const nextCycle = (t: TestContext, id: string) => sim(t, `/subscriptions/${id}/next-cycle`);
export const debit = (t: TestContext, chargeId: string, outcome = 'PAID') => sim(t, `/charges/${chargeId}/debit`, { outcome });

export async function getSub(t: TestContext, m: Merchant, id: string) {
  const res = await t.request('GET', `/subscriptions/${id}`, { key: m.key });
  expect(res.status).toBe(200);
  return res.body.data as Record<string, any>;
}

/** Its cycles' charges, newest first (all pages). */
export async function cycleCharges(t: TestContext, m: Merchant, id: string) {
  const res = await t.request('GET', `/subscriptions/${id}/charges?limit=100`, { key: m.key });
  expect(res.status).toBe(200);
  return res.body.data as Array<Record<string, any>>;
}

/** Waits for the subscription's cycle charges to number `n` (the issue job runs in the worker). */
export const chargesOnceThere = (t: TestContext, m: Merchant, id: string, n: number) =>
  eventually(async () => {
    const charges = await cycleCharges(t, m, id);
    if (charges.length !== n) throw new Error(`${charges.length} cycle charges, not ${n}`);
    return charges;
  }, 10_000);

export const waitForStatus = (t: TestContext, m: Merchant, id: string, status: string) =>
  eventually(async () => {
    const s = await getSub(t, m, id);
    if (s.status !== status) throw new Error(`${id} is ${s.status}, not ${status}`);
    return s;
  }, 10_000);
