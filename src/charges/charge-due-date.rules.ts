import { addDays, daysBetween, isCivilDate, saoPauloDate, type CivilDate } from '../calendar/index.js';
import type { CustomerRow } from '../customers/customer.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { AppError, validationError } from '../platform/errors.js';
import type { AmountBreakdown } from '../providers/port/cobv.port.js';
import type { DueDateChargeInput } from '../providers/port/provider.port.js';
import type { Charge, ChargeCreate, DiscountInput } from './charge.schemas.js';
import { chargeFee } from './charge.rules.js';
import type { DueDatePaid } from './charge.sql.js';
import type { ChargeViewRow } from './charge-view.sql.js';
import { checkDueDateTerms, smallestAmountDue } from './due-date-check.rules.js';
import { toCobVValor } from './due-date-cobv.rules.js';
import {
  amountDue, DEFAULT_DAYS_AFTER_DUE, dueDateExpiresAt, lastDayToPay, type Discount, type DueDateTerms,
} from './due-date.rules.js';

/** The fields that belong to a due-date charge only. */
const DUE_DATE_ONLY = ['daysAfterDue', 'fine', 'interest', 'discount', 'rebate'] as const;

/** What creating a due-date charge adds to an immediate one. */
export interface DueDateCreate {
  terms: DueDateTerms;
  expiresAt: Date;
  /** The merchant's fee terms now: at payment the fee is computed on the amount paid (charges.fee_fixed/bps). */
  feeFixed: number;
  feeBps: number;
  /** What the provider issues a `cobv` with. */
  provider: DueDateChargeInput;
}

/** The discount as the API takes it: `tiers` for the *_UNTIL modes, `value` for the per-day ones, never both. */
function discountOf(d: DiscountInput): Discount {
  if (d.mode === 'FIXED_UNTIL' || d.mode === 'PERCENT_UNTIL') {
    if (d.value !== undefined) throw validationError('discount.value', `not allowed with ${d.mode} (its values are in tiers)`);
    if (d.tiers === undefined) throw validationError('discount.tiers', `required with ${d.mode}`);
    return { mode: d.mode, tiers: d.tiers.map((t) => ({ date: t.date, value: t.value })) };
  }
  if (d.tiers !== undefined) throw validationError('discount.tiers', `not allowed with ${d.mode}`);
  if (d.value === undefined) throw validationError('discount.value', `required with ${d.mode}`);
  return { mode: d.mode, value: d.value };
}

/**
 * The due-date part of `POST /transparents/create` (docs/contract/due-date-charges.md#creating), checked after
 * the amount and the customer's lookup, before the split: null for an immediate charge, which may not carry its fields.
 * `today` is the São Paulo date the request arrived on.
 */
export function dueDateCreate(
  input: ChargeCreate, merchant: MerchantRow, customer: CustomerRow | undefined, today: string,
): DueDateCreate | null {
  if (input.dueDate === undefined) {
    const stray = DUE_DATE_ONLY.find((field) => input[field] !== undefined);
    if (stray) throw validationError(stray, 'only with dueDate');
    return null;
  }
  const terms: DueDateTerms = {
    amount: input.amount,
    dueDate: input.dueDate,
    daysAfterDue: input.daysAfterDue ?? DEFAULT_DAYS_AFTER_DUE,
    fine: input.fine ? { mode: input.fine.mode, value: input.fine.value } : null,
    interest: input.interest ? { mode: input.interest.mode, value: input.interest.value } : null,
    discount: input.discount ? discountOf(input.discount) : null,
    rebate: input.rebate ? { mode: input.rebate.mode, value: input.rebate.value } : null,
  };
  // The terms first, then what a due-date charge may not carry or must have.
  const problem = checkDueDateTerms(terms, today);
  if (problem) throw validationError(problem.field, problem.reason);
  if (input.expiresIn !== undefined) throw validationError('expiresIn', 'not allowed with dueDate (a due-date charge expires after its last day to pay)');
  if (input.split !== undefined && input.split.length > 0) throw validationError('split', 'not allowed with dueDate');
  if (!customer) throw validationError('customerId', 'required with dueDate (the payer BACEN requires)');
  if (!customer.name || !customer.tax_id) throw validationError('customerId', 'the customer needs a name and a taxId for a due-date charge');
  // The fee is taken from what is paid: even the smallest payment must cover it.
  const smallest = smallestAmountDue(terms, today);
  const fee = chargeFee(merchant, smallest);
  if (fee > smallest) throw validationError('amount', `must cover the fee (${fee}) even on the smallest amount due (${smallest})`);
  return {
    terms,
    expiresAt: dueDateExpiresAt(terms),
    feeFixed: merchant.charge_fee_fixed,
    feeBps: merchant.charge_fee_bps,
    provider: {
      dueDate: terms.dueDate, daysAfterDue: terms.daysAfterDue, valor: toCobVValor(terms),
      debtor: { name: customer.name, taxId: customer.tax_id },
    },
  };
}

/** The terms of a charge as the API shows it; null for an immediate charge. */
export function termsOfCharge(c: Pick<Charge, 'amount' | 'dueDate' | 'daysAfterDue' | 'fine' | 'interest' | 'discount' | 'rebate'>): DueDateTerms | null {
  if (c.dueDate === null || c.daysAfterDue === null) return null;
  return {
    amount: c.amount, dueDate: c.dueDate, daysAfterDue: c.daysAfterDue,
    fine: c.fine, interest: c.interest, discount: c.discount as Discount | null, rebate: c.rebate,
  };
}

const sumOf = (b: AmountBreakdown) => b.original - b.rebate - b.discount + b.fine + b.interest;

/**
 * What an amount paid on `day` is made of (docs/contract/due-date-charges.md#payment): the PSP's own
 * `componentesValor` when it reports parts that add up to the amount; else the parts of the latest day, from
 * `day` (or the last day to pay) back to the charge's creation, whose amount due it is — the day of payment
 * itself, or an earlier one when the payer's bank extended the due date for a local holiday; else, for an
 * amount no day explains, its difference to V as a discount (less) or interest (more).
 */
function paidBreakdownOf(
  terms: DueDateTerms, amount: number, day: CivilDate, createdOn: CivilDate, reported?: AmountBreakdown | null,
): AmountBreakdown {
  if (reported && sumOf(reported) === amount) return reported;
  const last = lastDayToPay(terms);
  for (let d = day < last ? day : last; d >= createdOn; d = addDays(d, -1)) {
    const due = amountDue(terms, d);
    if (due?.amountDue === amount) return due.breakdown;
  }
  const v = terms.amount;
  return { original: v, rebate: 0, discount: Math.max(0, v - amount), fine: 0, interest: Math.max(0, amount - v) };
}

/** What a payment reads of a due-date charge (charge-view.sql.ts selectPayable): its terms, creation, fee terms. */
export type PayableTerms = Pick<ChargeViewRow, 'amount' | 'created_at' | 'due_date' | 'days_after_due' | 'due_rules'> & {
  fee_fixed: number | null;
  fee_bps: number | null;
};

const DAY_MS = 86_400_000;

/**
 * A due-date charge's payment (docs/contract/due-date-charges.md#payment), null for an immediate charge (which
 * takes no `day`). The amount that arrived is what is credited, with its parts and the fee on it (the charge's fee
 * terms, never more than the amount). No amount (the simulated payer, docs/contract/due-date-charges.md#simulator):
 * it pays the amount due on `day` (default the São Paulo day of `paidAt`), and the payment is dated that day at
 * `paidAt`'s time of day; a day before the charge's creation is refused, one after its last day to pay too.
 */
export function dueDatePayment(
  row: PayableTerms, p: { amount?: number; paidAt: Date; day?: string; components?: AmountBreakdown | null },
): { paidAt: Date; paid: DueDatePaid } | null {
  const terms = termsOfRow(row);
  if (!terms) {
    if (p.day !== undefined) throw validationError('date', 'only a due-date charge is paid on a chosen date');
    return null;
  }
  const createdOn = saoPauloDate(row.created_at);
  let { amount, paidAt } = p;
  let paidBreakdown: AmountBreakdown;
  if (amount === undefined) {
    const today = saoPauloDate(p.paidAt);
    const day = p.day ?? today;
    if (!isCivilDate(day)) throw validationError('date', 'must be a date YYYY-MM-DD');
    if (day < createdOn) throw validationError('date', `must not be before the charge was created (${createdOn})`);
    const due = amountDue(terms, day);
    if (!due) throw new AppError('INVALID_STATE', `Charge cannot be paid on ${day}: its last day to pay is ${lastDayToPay(terms)}`);
    amount = due.amountDue;
    paidBreakdown = due.breakdown;
    paidAt = new Date(p.paidAt.getTime() + daysBetween(today, day) * DAY_MS);
  } else {
    paidBreakdown = paidBreakdownOf(terms, amount, saoPauloDate(paidAt), createdOn, p.components);
  }
  const fee = Math.min(chargeFee({ charge_fee_fixed: row.fee_fixed!, charge_fee_bps: row.fee_bps! }, amount), amount);
  return { paidAt, paid: { paidAmount: amount, paidBreakdown, fee, netAmount: amount - fee } };
}

/** The terms of a charge as read from its row; null for an immediate charge. */
function termsOfRow(c: Pick<PayableTerms, 'amount' | 'due_date' | 'days_after_due' | 'due_rules'>): DueDateTerms | null {
  if (c.due_date === null || c.days_after_due === null || c.due_rules === null) return null;
  return { amount: c.amount, dueDate: c.due_date, daysAfterDue: c.days_after_due, ...c.due_rules };
}
