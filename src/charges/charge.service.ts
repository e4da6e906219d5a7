import { saoPauloDate } from '../calendar/index.js';
import { selectActiveCustomer, type CustomerRow } from '../customers/customer.sql.js';
import { eventCtes } from '../events/event.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { storeName } from '../merchants/merchant.service.js';
import { withStatement, withTransaction, type Executor, type TransactionHook, type Tx } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { withClaim, type Claimable } from '../platform/http/idempotency-claim.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import type { ProviderCharge } from '../providers/port/provider.port.js';
import type { Charge, ChargeCreate, ChargeListFilters, ChargeWithImage, SplitEntry } from './charge.schemas.js';
import { assertCanCharge, chargeFee, checkTicket, netAmount, resolveSplit } from './charge.rules.js';
import { dueDateCreate } from './charge-due-date.rules.js';
import { insertCharge, type NewCharge } from './charge.sql.js';
import { listChargesQuery, listCycleChargesQuery, type ChargeViewRow } from './charge-view.sql.js';
import { insertedChargeView, loadCharge, toCharge, withImage } from './charge.view.js';

const DEFAULT_EXPIRES_IN = 86_400;

/**
 * What owns a charge made with it (a checkout, docs/contract/checkouts.md#checkouts; a subscription's first charge,
 * docs/contract/subscriptions.md#journeys): its id goes on the charge, and `write` records the owner in the
 * charge's own transaction, after the charge; its result is the command's answer (and the Idempotency-Key's).
 * `write` may refuse (throw), which leaves no charge either. `issued` runs right after the provider issued the
 * charge, holding no connection: the owner's own provider calls on that charge (a recurrence paid with it).
 */
export interface ChargeOwner<T> {
  checkoutId?: string;
  subscriptionId?: string;
  issued?(charge: ProviderCharge): Promise<void>;
  write(tx: Tx, charge: ChargeWithImage): Promise<T>;
}

/**
 * A charge, its split and CHARGE_CREATED in one statement; the event's data is the view the insert will return
 * (only its two timestamps come from SQL), so creation needs no second read. The answer has no image yet, and the
 * customer's phone only when asked (as `check` shows it).
 */
async function insertWithEvent(
  db: Executor, charge: NewCharge, split: SplitEntry[], customer: CustomerRow | undefined, cycle: { dueDate: string } | null, phone = false,
): Promise<Charge> {
  const due = charge.due;
  const pending = insertedChargeView({
    id: charge.id, amount: charge.amount, status: 'PENDING', txid: charge.txid, br_code: charge.br_code, description: charge.description,
    checkout_id: charge.checkout_id, subscription_id: charge.subscription_id, fee: charge.fee, net_amount: charge.net_amount,
    created_at: new Date(0), expires_at: new Date(0), paid_at: null, end2end_id: null,
    due_date: due?.due_date ?? null, days_after_due: due?.days_after_due ?? null, due_rules: due?.due_rules ?? null,
    paid_amount: null, paid_breakdown: null,
  }, split, customer, cycle);
  const event = eventCtes([{ merchantId: charge.merchant_id, type: 'CHARGE_CREATED', data: toCharge(pending, { phone: true }) }],
    { from: 'charge c', times: { createdAt: 'c.created_at', expiresAt: 'c.expires_at' } });
  const inserted = await insertCharge(db, charge, split, event);
  return toCharge(insertedChargeView(inserted, split, customer, cycle), { phone });
}

/**
 * POST /transparents/create. Checks run in the order schema (400) → KYC and PIX key (403) → the rest
 * (400), all before the provider is called. No transaction is open while the provider issues the BR Code
 * (docs/contract/psp.md#no-call-in-a-transaction): an Idempotency-Key is claimed first in a statement of its own, so a duplicate
 * meanwhile never issues a second code, and the charge is written after the call — in one statement
 * (charge, split and CHARGE_CREATED), or in a short transaction when the customer must be locked or the
 * key's answer stored with it. The expiry job is scheduled later, by the sweep of charge-expiry.service.ts.
 */
export function createCharge(rt: Runtime, merchant: MerchantRow, input: ChargeCreate, idempotency?: Claimable): Promise<ChargeWithImage>;
export function createCharge<T>(rt: Runtime, merchant: MerchantRow, input: ChargeCreate, idempotency: Claimable | undefined, owner: ChargeOwner<T>): Promise<T>;
export async function createCharge<T>(
  rt: Runtime, merchant: MerchantRow, input: ChargeCreate, idempotency?: Claimable, owner?: ChargeOwner<T>,
): Promise<T | ChargeWithImage> {
  assertCanCharge(merchant);
  checkTicket(merchant, input.amount);
  const fee = chargeFee(merchant, input.amount);
  const customer = input.customerId === undefined ? undefined : await selectActiveCustomer(rt.pool, merchant.id, input.customerId);
  if (input.customerId !== undefined && !customer) throw validationError('customerId', 'not found');
  const due = dueDateCreate(input, merchant, customer, saoPauloDate(new Date()));
  const split = await resolveSplit(rt.pool, merchant.id, input.amount, input.split ?? []);
  const net = netAmount(input.amount, fee, split);
  return withClaim(rt.pool, idempotency, async (hook?: TransactionHook<T | ChargeWithImage>) => {
    const id = newId('chg');
    // A due-date charge lasts to the end of its last day to pay (docs/contract/due-date-charges.md#dates).
    const expiresIn = due ? Math.ceil((due.expiresAt.getTime() - Date.now()) / 1000) : input.expiresIn ?? DEFAULT_EXPIRES_IN;
    const description = input.description ?? null;
    const issued = await rt.provider
      .createCharge({
        chargeId: id, amount: input.amount, expiresIn, description,
        merchant: { pixKey: merchant.pix_key!, name: storeName(merchant) ?? merchant.user_name, city: merchant.city },
        ...(due && { dueDate: due.provider }),
      })
      .catch(() => { throw new AppError('PROVIDER_ERROR', 'The PIX provider could not issue the charge; nothing was created'); });
    await owner?.issued?.(issued);
    const dueRow = due && {
      due_date: due.terms.dueDate, days_after_due: due.terms.daysAfterDue, fee_fixed: due.feeFixed, fee_bps: due.feeBps, expires_at: due.expiresAt,
      due_rules: { fine: due.terms.fine ?? null, interest: due.terms.interest ?? null, discount: due.terms.discount ?? null, rebate: due.terms.rebate ?? null },
    };
    const charge: NewCharge = {
      id, merchant_id: merchant.id, customer_id: input.customerId ?? null, checkout_id: owner?.checkoutId ?? null,
      subscription_id: owner?.subscriptionId ?? null, amount: input.amount, txid: issued.txid,
      br_code: issued.brCode, description, fee, net_amount: net, expires_in: expiresIn, due: dueRow,
    };
    const write = async (db: Executor): Promise<ChargeWithImage> => {
      // Read again FOR SHARE: a delete that committed during the call means no charge; one arriving now
      // waits for this commit. Customers are never edited, so the row read before the call is still right.
      if (customer && !(await selectActiveCustomer(db, merchant.id, customer.id, true))) throw validationError('customerId', 'not found');
      return withImage(await insertWithEvent(db, charge, split, customer, null));
    };
    if (owner) return withTransaction(rt.pool, async (tx) => owner.write(tx, await write(tx)), hook);
    return customer ? withTransaction(rt.pool, write, hook) : withStatement(rt.pool, write, hook);
  });
}

/** A subscription cycle's charge as the provider issued it (docs/contract/subscriptions.md#cycle-charges). */
export interface IssuedCycleCharge {
  amount: number;
  txid: string;
  description: string | null;
  customer: CustomerRow;
  subscriptionId: string;
  dueDate: string;
  /** The end of its last day to pay. */
  expiresAt: Date;
}

/**
 * Writes a subscription cycle's charge, already issued by the provider, in the caller's transaction: an
 * ordinary charge (fee from the merchant's terms now, credited as every charge) with no split and no code to
 * scan — the payer's bank debits it — and its CHARGE_CREATED. Answers it as `check` shows it.
 */
export async function writeCycleCharge(tx: Tx, merchant: MerchantRow, c: IssuedCycleCharge): Promise<Charge> {
  const fee = chargeFee(merchant, c.amount);
  const charge: NewCharge = {
    id: newId('chg'), merchant_id: merchant.id, customer_id: c.customer.id, checkout_id: null, subscription_id: c.subscriptionId,
    amount: c.amount, txid: c.txid, br_code: '', description: c.description, fee, net_amount: netAmount(c.amount, fee, []),
    expires_at: c.expiresAt, due: null,
  };
  return insertWithEvent(tx, charge, [], c.customer, { dueDate: c.dueDate }, true);
}

/** GET /transparents/check: the charge with its image and complete customer. */
export async function checkCharge(db: Executor, merchantId: string, id: string): Promise<ChargeWithImage> {
  const charge = await loadCharge(db, id, merchantId);
  if (!charge) throw notFound('Charge');
  return withImage(charge);
}

export async function listCharges(rt: Runtime, merchantId: string, filters: ChargeListFilters): Promise<Page<Charge>> {
  const { id, email, status, ...page } = filters;
  const scope = { merchantId, list: 'charges', id, email, status };
  const result = await keysetPage<ChargeViewRow>(rt.pool, rt.cursors, scope, listChargesQuery(merchantId, { id, email, status }), page as PageRequest);
  return { items: result.items.map((row) => toCharge(row, { phone: false })), pagination: result.pagination };
}

/** A subscription's cycle charges, newest first (the caller checked the subscription is the merchant's). */
export async function listCycleCharges(rt: Runtime, merchantId: string, subscriptionId: string, page: PageRequest): Promise<Page<Charge>> {
  const scope = { merchantId, list: 'subscription-charges', subscriptionId };
  const result = await keysetPage<ChargeViewRow>(rt.pool, rt.cursors, scope, listCycleChargesQuery(merchantId, subscriptionId), page);
  return { items: result.items.map((row) => toCharge(row, { phone: false })), pagination: result.pagination };
}
