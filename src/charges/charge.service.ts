import { saoPauloDate } from '../calendar/index.js';
import { selectActiveCustomer } from '../customers/customer.sql.js';
import { eventCtes } from '../events/event.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { storeName } from '../merchants/merchant.service.js';
import { withStatement, withTransaction, type Executor, type TransactionHook, type Tx } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { withClaim, type Claimable } from '../platform/http/idempotency-claim.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import type { Charge, ChargeCreate, ChargeListFilters, ChargeWithImage } from './charge.schemas.js';
import { assertCanCharge, chargeFee, checkTicket, netAmount, resolveSplit } from './charge.rules.js';
import { dueDateCreate } from './charge-due-date.rules.js';
import { insertCharge, type NewCharge } from './charge.sql.js';
import { listChargesQuery, type ChargeViewRow } from './charge-view.sql.js';
import { insertedChargeView, loadCharge, toCharge, withImage } from './charge.view.js';

const DEFAULT_EXPIRES_IN = 86_400;

/**
 * What owns a charge made with it (a checkout, docs/contract/checkouts.md#checkouts): its id goes on the charge, and
 * `write` records the owner in the charge's own transaction, after the charge; its result is the command's answer
 * (and the Idempotency-Key's). `write` may refuse (throw), which leaves no charge either.
 */
export interface ChargeOwner<T> {
  checkoutId: string;
  write(tx: Tx, charge: ChargeWithImage): Promise<T>;
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
    const dueRow = due && {
      due_date: due.terms.dueDate, days_after_due: due.terms.daysAfterDue, fee_fixed: due.feeFixed, fee_bps: due.feeBps, expires_at: due.expiresAt,
      due_rules: { fine: due.terms.fine ?? null, interest: due.terms.interest ?? null, discount: due.terms.discount ?? null, rebate: due.terms.rebate ?? null },
    };
    const charge: NewCharge = {
      id, merchant_id: merchant.id, customer_id: input.customerId ?? null, checkout_id: owner?.checkoutId ?? null, amount: input.amount, txid: issued.txid,
      br_code: issued.brCode, description, fee, net_amount: net, expires_in: expiresIn, due: dueRow,
    };
    // The event's data is the view the insert will return; only its two timestamps come from SQL.
    const pending = insertedChargeView({
      id, amount: input.amount, status: 'PENDING', txid: issued.txid, br_code: issued.brCode, description, checkout_id: charge.checkout_id, fee, net_amount: net,
      created_at: new Date(0), expires_at: new Date(0), paid_at: null, end2end_id: null,
      due_date: dueRow?.due_date ?? null, days_after_due: dueRow?.days_after_due ?? null, due_rules: dueRow?.due_rules ?? null,
      paid_amount: null, paid_breakdown: null,
    }, split, customer);
    const event = eventCtes([{ merchantId: merchant.id, type: 'CHARGE_CREATED', data: toCharge(pending, { phone: true }) }],
      { from: 'charge c', times: { createdAt: 'c.created_at', expiresAt: 'c.expires_at' } });
    const write = async (db: Executor): Promise<ChargeWithImage> => {
      // Read again FOR SHARE: a delete that committed during the call means no charge; one arriving now
      // waits for this commit. Customers are never edited, so the row read before the call is still right.
      if (customer && !(await selectActiveCustomer(db, merchant.id, customer.id, true))) throw validationError('customerId', 'not found');
      const inserted = await insertCharge(db, charge, split, event);
      return withImage(toCharge(insertedChargeView(inserted, split, customer), { phone: false }));
    };
    if (owner) return withTransaction(rt.pool, async (tx) => owner.write(tx, await write(tx)), hook);
    return customer ? withTransaction(rt.pool, write, hook) : withStatement(rt.pool, write, hook);
  });
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
