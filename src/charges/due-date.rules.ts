import { addDays, daysBetween, nextBusinessDay, saoPauloDayEnd, type CivilDate } from '../calendar/index.js';
import type { AmountBreakdown } from '../providers/port/cobv.port.js';

// The dates and the amount due of a due-date charge (BACEN `cobv`), pure
// (docs/contract/due-date-charges.md#due-date-charges). Shared by the API, the simulator's payer-side payload
// and the dashboard, so it imports nothing but the calendar (and the port's types).
// Money is integer cents, percentages are basis points (250 = 2.50 %).

/** Abatimento: taken off whatever the day. */
export interface Rebate {
  mode: 'FIXED' | 'PERCENT';
  value: number;
}

export interface DiscountTier {
  date: CivilDate;
  value: number;
}

/** Desconto: only on a payment on or before the effective due date. */
export type Discount =
  | { mode: 'FIXED_UNTIL' | 'PERCENT_UNTIL'; tiers: DiscountTier[] }
  | { mode: 'AMOUNT_PER_DAY_EARLY' | 'PERCENT_PER_DAY_EARLY'; value: number };

/** Multa: once, on a payment after the effective due date. */
export interface Fine {
  mode: 'FIXED' | 'PERCENT';
  value: number;
}

/** Juros: per calendar day after the effective due date. */
export interface Interest {
  mode: 'AMOUNT_PER_DAY' | 'PERCENT_PER_DAY' | 'PERCENT_PER_MONTH' | 'PERCENT_PER_YEAR';
  value: number;
}

/** What the rules need of a due-date charge; absent rules are null (the API's charge object) or missing. */
export interface DueDateTerms {
  /** `V`, the charge's amount in cents. */
  amount: number;
  dueDate: CivilDate;
  /** Calendar days after the due date in which it can still be paid (0–365). */
  daysAfterDue: number;
  rebate?: Rebate | null;
  discount?: Discount | null;
  fine?: Fine | null;
  interest?: Interest | null;
}

/** The four rules of a charge, each as given or null (stored so in charges.due_rules). */
export type DueRules = Pick<DueDateTerms, 'fine' | 'interest' | 'discount' | 'rebate'>;

/** `{original, rebate, discount, fine, interest}` in cents: the provider port's shape (a PSP reports it too). */
export type { AmountBreakdown };

export interface AmountDue {
  /** original − rebate − discount + fine + interest. */
  amountDue: number;
  breakdown: AmountBreakdown;
}

/** `daysAfterDue` when the request leaves it out. */
export const DEFAULT_DAYS_AFTER_DUE = 30;

/**
 * `E`: the due date, moved to the next business day when it is not one. BACEN (`validadeAposVencimento`):
 * every field that refers to the due date assumes its extension — discount, fine, interest, validity.
 */
export const effectiveDueDate = (dueDate: CivilDate): CivilDate => nextBusinessDay(dueDate);

/** `L`: E + daysAfterDue calendar days, itself moved to the next business day (BACEN's examples A–G). */
export const lastDayToPay = (terms: Pick<DueDateTerms, 'dueDate' | 'daysAfterDue'>): CivilDate =>
  nextBusinessDay(addDays(effectiveDueDate(terms.dueDate), terms.daysAfterDue));

/** The charge's `expiresAt`: the end of L in São Paulo, its last millisecond (its São Paulo date is L). */
export const dueDateExpiresAt = (terms: Pick<DueDateTerms, 'dueDate' | 'daysAfterDue'>): Date =>
  saoPauloDayEnd(lastDayToPay(terms));

/**
 * floor(Π factors / divisor) of non-negative integers, in BigInt: with V up to 10^8 cents, values up to
 * BACEN's 12 digits and hundreds of days, a product passes 2^53, and the floor must be of the exact one.
 */
function floorOfProduct(factors: number[], divisor: number): bigint {
  return factors.reduce((product, f) => product * BigInt(f), 1n) / BigInt(divisor);
}

const percentOf = (v: number, bps: number): bigint => floorOfProduct([v, bps], 10_000);

function rebateOf(v: number, rebate: Rebate | null | undefined): bigint {
  if (!rebate) return 0n;
  return rebate.mode === 'FIXED' ? BigInt(rebate.value) : percentOf(v, rebate.value);
}

/** The tier that applies on D: the earliest dated on or after D, a tier dated dueDate counting as dated E. */
function tierOn(tiers: DiscountTier[], dueDate: CivilDate, e: CivilDate, d: CivilDate): DiscountTier | undefined {
  let found: { tier: DiscountTier; date: CivilDate } | undefined;
  for (const tier of tiers) {
    const date = tier.date === dueDate ? e : tier.date;
    if (date >= d && (!found || date < found.date)) found = { tier, date };
  }
  return found?.tier;
}

/** The discount on D (D ≤ E). */
function discountOn(terms: DueDateTerms, e: CivilDate, d: CivilDate): bigint {
  const { discount, amount: v } = terms;
  if (!discount) return 0n;
  switch (discount.mode) {
    case 'FIXED_UNTIL':
    case 'PERCENT_UNTIL': {
      const tier = tierOn(discount.tiers, terms.dueDate, e, d);
      if (!tier) return 0n;
      return discount.mode === 'FIXED_UNTIL' ? BigInt(tier.value) : percentOf(v, tier.value);
    }
    case 'AMOUNT_PER_DAY_EARLY':
      return BigInt(discount.value) * BigInt(daysBetween(d, e));
    case 'PERCENT_PER_DAY_EARLY':
      return floorOfProduct([v, discount.value, daysBetween(d, e)], 10_000);
  }
}

const INTEREST_DIVISOR: Record<Exclude<Interest['mode'], 'AMOUNT_PER_DAY'>, number> = {
  PERCENT_PER_DAY: 10_000,
  PERCENT_PER_MONTH: 30 * 10_000,
  PERCENT_PER_YEAR: 365 * 10_000,
};

/** Fine and interest on D, n = D − E > 0 calendar days late. */
function lateCharges(terms: DueDateTerms, n: number): { fine: bigint; interest: bigint } {
  const { fine, interest, amount: v } = terms;
  const fineAmount = !fine ? 0n : fine.mode === 'FIXED' ? BigInt(fine.value) : percentOf(v, fine.value);
  let interestAmount = 0n;
  if (interest?.mode === 'AMOUNT_PER_DAY') interestAmount = BigInt(interest.value) * BigInt(n);
  else if (interest) interestAmount = floorOfProduct([v, interest.value, n], INTEREST_DIVISOR[interest.mode]);
  return { fine: fineAmount, interest: interestAmount };
}

/** The parts of the amount due on D, exact: the creation check weighs terms whose amounts pass 2^53. */
export interface DueParts {
  rebate: bigint;
  discount: bigint;
  fine: bigint;
  interest: bigint;
}

/** The parts on day `d`, or null when `d` is after the last day to pay. */
export function duePartsOn(terms: DueDateTerms, d: CivilDate): DueParts | null {
  const e = effectiveDueDate(terms.dueDate);
  if (d > lastDayToPay(terms)) return null;
  const late = d > e ? lateCharges(terms, daysBetween(e, d)) : { fine: 0n, interest: 0n };
  return { rebate: rebateOf(terms.amount, terms.rebate), discount: d <= e ? discountOn(terms, e, d) : 0n, ...late };
}

/** V − rebate − discount + fine + interest. */
export const totalOf = (amount: number, p: DueParts): bigint => BigInt(amount) - p.rebate - p.discount + p.fine + p.interest;

function toCents(amount: bigint): number {
  if (amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount beyond 2^53 cents');
  return Number(amount);
}

/**
 * The amount of a payment made on day `d` (São Paulo date) and its parts, each floored to the cent on its
 * own; null when `d` is after the last day to pay. Terms are those that passed `checkDueDateTerms`
 * (due-date-check.rules.ts), and `d` a day from the charge's creation on.
 */
export function amountDue(terms: DueDateTerms, d: CivilDate): AmountDue | null {
  const p = duePartsOn(terms, d);
  if (!p) return null;
  return {
    amountDue: toCents(totalOf(terms.amount, p)),
    breakdown: {
      original: terms.amount,
      rebate: toCents(p.rebate),
      discount: toCents(p.discount),
      fine: toCents(p.fine),
      interest: toCents(p.interest),
    },
  };
}
