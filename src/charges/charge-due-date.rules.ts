import type { CustomerRow } from '../customers/customer.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { validationError } from '../platform/errors.js';
import type { DueDateChargeInput } from '../providers/port/provider.port.js';
import type { Charge, ChargeCreate, DiscountInput } from './charge.schemas.js';
import { chargeFee } from './charge.rules.js';
import { checkDueDateTerms, smallestAmountDue } from './due-date-check.rules.js';
import { toCobVValor } from './due-date-cobv.rules.js';
import { DEFAULT_DAYS_AFTER_DUE, dueDateExpiresAt, type Discount, type DueDateTerms } from './due-date.rules.js';

/** The fields that belong to a due-date charge only. */
const DUE_DATE_ONLY = ['daysAfterDue', 'fine', 'interest', 'discount', 'rebate'] as const;

/** The rules as stored on the charge and shown back: each as given, or null (charges.due_rules). */
export type DueRules = Pick<DueDateTerms, 'fine' | 'interest' | 'discount' | 'rebate'>;

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
 * the amount, the customer and the split: null for an immediate charge, which may not carry its fields.
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
  if (input.expiresIn !== undefined) throw validationError('expiresIn', 'not allowed with dueDate (a due-date charge expires after its last day to pay)');
  if (input.split !== undefined && input.split.length > 0) throw validationError('split', 'not allowed with dueDate');
  if (!customer) throw validationError('customerId', 'required with dueDate (the payer BACEN requires)');
  if (!customer.name || !customer.tax_id) throw validationError('customerId', 'the customer needs a name and a taxId for a due-date charge');
  const terms: DueDateTerms = {
    amount: input.amount,
    dueDate: input.dueDate,
    daysAfterDue: input.daysAfterDue ?? DEFAULT_DAYS_AFTER_DUE,
    fine: input.fine ? { mode: input.fine.mode, value: input.fine.value } : null,
    interest: input.interest ? { mode: input.interest.mode, value: input.interest.value } : null,
    discount: input.discount ? discountOf(input.discount) : null,
    rebate: input.rebate ? { mode: input.rebate.mode, value: input.rebate.value } : null,
  };
  const problem = checkDueDateTerms(terms, today);
  if (problem) throw validationError(problem.field, problem.reason);
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
