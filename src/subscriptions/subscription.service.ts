import { saoPauloDate } from '../calendar/index.js';
import { assertCanCharge, chargeFee, checkTicket, netAmount } from '../charges/charge.rules.js';
import type { Charge, ChargeWithImage } from '../charges/charge.schemas.js';
import { selectChargeViews } from '../charges/charge-view.sql.js';
import { createCharge, listCycleCharges } from '../charges/charge.service.js';
import { selectActiveCustomer } from '../customers/customer.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { storeName } from '../merchants/merchant.service.js';
import { withTransaction, type TransactionHook, type Tx } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { withClaim, type Claimable } from '../platform/http/idempotency-claim.js';
import { newId } from '../platform/ids.js';
import { enqueue } from '../platform/jobs.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { ProviderRecurrence, RecurrenceInput } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import type { Subscription, SubscriptionCreate, SubscriptionListFilters } from './subscription.schemas.js';
import { authorizationDeadline, checkSubscriptionCreate, lastDueDate } from './subscription.rules.js';
import { insertSubscription, listSubscriptionsQuery, selectSubscriptionView, type NewSubscription, type SubscriptionViewRow } from './subscription.sql.js';
import { cancelByMerchant, EXPIRE_TASK } from './subscription-state.service.js';
import { loadSubscription, subscriptionOf } from './subscription.view.js';

/** A journey-3 first charge can be paid as long as the subscription waits for its authorization, within a charge's bounds. */
const MAX_FIRST_CHARGE_SECONDS = 2_592_000;

/**
 * POST /subscriptions (docs/contract/subscriptions.md#create). Checks in the order schema (400) → the merchant may charge
 * (403) → the rest (400), all before the provider is called. The recurrence is registered at the provider holding
 * no connection, under the Idempotency-Key's claim (docs/contract/http.md#idempotency-claims); journey 3's first
 * charge is made by the charge create itself (its checks, its provider call) with the recurrence registered on it
 * right after. The subscription is written in one transaction (with the first charge), with its expiry job.
 */
export async function createSubscription(rt: Runtime, merchant: MerchantRow, input: SubscriptionCreate, idempotency?: Claimable): Promise<Subscription> {
  assertCanCharge(merchant);
  const now = new Date();
  checkSubscriptionCreate(input, saoPauloDate(now));
  // Each amount a charge of the subscription can have must be chargeable: within the tickets and covering the fee
  // (a variable cycle's amount is at least minAmount, and the net grows with the amount).
  const amounts: Array<[string, number | undefined]> = [['amount', input.amount], ['minAmount', input.minAmount], ['firstPayment.amount', input.firstPayment?.amount]];
  for (const [field, amount] of amounts) {
    if (amount === undefined) continue;
    checkTicket(merchant, amount, field);
    netAmount(amount, chargeFee(merchant, amount), [], field);
  }
  const customer = await selectActiveCustomer(rt.pool, merchant.id, input.customerId);
  if (!customer) throw validationError('customerId', 'not found');
  if (!customer.name || !customer.tax_id) throw validationError('customerId', 'the customer needs a name and a taxId (the payer of a recurrence)');

  const id = newId('sub');
  const expiresAt = authorizationDeadline(input.startDate, input.journey, input.requestExpiresIn, now);
  const recurrence: RecurrenceInput = {
    subscriptionId: id, journey: input.journey, frequency: input.frequency, startDate: input.startDate, endDate: input.endDate ?? null,
    amount: input.amount ?? null, minAmount: input.minAmount ?? null, contract: input.contract, description: input.description ?? null,
    retryPolicy: input.retryPolicy ?? 'NONE', payer: { name: customer.name, taxId: customer.tax_id },
    merchant: { name: storeName(merchant) ?? merchant.user_name, city: merchant.city, taxId: merchant.kyc_tax_id },
    ...(input.payerAccount && {
      payerAccount: { ispb: input.payerAccount.ispb, branch: input.payerAccount.branch, account: input.payerAccount.account },
      requestExpiresAt: expiresAt,
    }),
  };
  const register = (extra: Partial<RecurrenceInput> = {}): Promise<ProviderRecurrence> => rt.provider.createRecurrence({ ...recurrence, ...extra })
    .catch(() => { throw new AppError('PROVIDER_ERROR', 'The PIX provider could not register the recurrence; nothing was created'); });
  const row = (rec: ProviderRecurrence, firstChargeId: string | null): NewSubscription => ({
    id, merchant_id: merchant.id, customer_id: customer.id, journey: input.journey, amount: input.amount ?? null,
    min_amount: input.minAmount ?? null, frequency: input.frequency, start_date: input.startDate, end_date: input.endDate ?? null,
    contract: input.contract, description: input.description ?? null, retry_policy: recurrence.retryPolicy, br_code: rec.brCode,
    first_charge_id: firstChargeId, payer_ispb: input.payerAccount?.ispb ?? null, payer_branch: input.payerAccount?.branch ?? null,
    payer_account: input.payerAccount?.account ?? null, expires_at: expiresAt, provider_ref: rec.providerRef,
    last_due_date: lastDueDate(input.startDate, input.frequency, input.endDate ?? null),
  });
  const write = async (tx: Tx, rec: ProviderRecurrence, firstChargeId: string | null): Promise<Subscription> => {
    // Read again FOR SHARE: a delete that committed during the provider's call means no subscription.
    if (!(await selectActiveCustomer(tx, merchant.id, customer.id, true))) throw validationError('customerId', 'not found');
    await insertSubscription(tx, row(rec, firstChargeId));
    await enqueue(tx, EXPIRE_TASK, { subscriptionId: id }, { runAt: expiresAt, jobKey: `${EXPIRE_TASK}:${id}` });
    return (await loadSubscription(tx, id, merchant.id, { withCode: true }))!.subscription;
  };

  if (input.journey === 'QR_WITH_PAYMENT') {
    let rec: ProviderRecurrence | undefined;
    const expiresIn = Math.min(MAX_FIRST_CHARGE_SECONDS, Math.max(60, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
    return createCharge(rt, merchant, {
      method: 'PIX', amount: input.firstPayment!.amount, customerId: customer.id, description: input.description ?? input.contract, expiresIn,
    }, idempotency, {
      subscriptionId: id,
      issued: async (charge) => { rec = await register({ firstCharge: charge }); },
      write: (tx, charge: ChargeWithImage) => write(tx, rec!, charge.id),
    });
  }
  return withClaim(rt.pool, idempotency, async (hook?: TransactionHook<Subscription>) => {
    const rec = await register();
    return withTransaction(rt.pool, (tx) => write(tx, rec, null), hook);
  });
}

export async function getSubscription(rt: Runtime, merchantId: string, id: string): Promise<Subscription> {
  const found = await loadSubscription(rt.pool, id, merchantId, { withCode: true });
  if (!found) throw notFound('Subscription');
  return found.subscription;
}

export async function listSubscriptions(rt: Runtime, merchantId: string, filters: SubscriptionListFilters): Promise<Page<Subscription>> {
  const { status, ...page } = filters;
  const scope = { merchantId, list: 'subscriptions', status };
  const result = await keysetPage<SubscriptionViewRow>(rt.pool, rt.cursors, scope, listSubscriptionsQuery(merchantId, { status }), page as PageRequest);
  const firstCharges = await selectChargeViews(rt.pool, result.items.flatMap((r) => (r.first_charge_id ? [r.first_charge_id] : [])));
  const items = result.items.map((row) => subscriptionOf(row, row.first_charge_id ? firstCharges.get(row.first_charge_id) : undefined, { withCode: false }));
  return { items, pagination: result.pagination };
}

/** GET /subscriptions/{id}/charges: its cycles' charges, newest first. */
export async function listSubscriptionCharges(rt: Runtime, merchantId: string, id: string, page: PageRequest): Promise<Page<Charge>> {
  if (!(await selectSubscriptionView(rt.pool, id, merchantId))) throw notFound('Subscription');
  return listCycleCharges(rt, merchantId, id, page);
}

/** POST /subscriptions/{id}/cancel. */
export const cancelSubscription = (rt: Runtime, merchantId: string, id: string, hook?: TransactionHook<Subscription>) =>
  withTransaction(rt.pool, (tx) => cancelByMerchant(tx, merchantId, id), hook);
