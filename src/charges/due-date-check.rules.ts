import { daysBetween, isCivilDate, type CivilDate } from '../calendar/index.js';
import { duePartsOn, effectiveDueDate, lastDayToPay, totalOf, type DueDateTerms } from './due-date.rules.js';

/** A refused field: the API answers `VALIDATION_ERROR` with `<field>: <reason>`. */
export interface TermsProblem {
  field: string;
  reason: string;
}

/**
 * How far ahead a due date may lie: ten years of days. Not BACEN's rule but the calendar's bound — a date near
 * 9999-12-31 would push E, L and expiresAt past the last date there is.
 */
const MAX_DAYS_AHEAD = 3653;

/** The most BACEN's money text `\d{1,10}\.\d{2}` can carry, in cents: the amount due must fit in it. */
export const MAX_BACEN_CENTS = 999_999_999_999;

const isPositive = (n: number) => Number.isSafeInteger(n) && n > 0;
const problem = (field: string, reason: string): TermsProblem => ({ field, reason });

function checkTiers(terms: DueDateTerms): TermsProblem | null {
  const { discount, dueDate } = terms;
  if (!discount || !('tiers' in discount)) return null;
  if (discount.tiers.length < 1 || discount.tiers.length > 3) return problem('discount.tiers', 'must have 1 to 3 tiers');
  const seen = new Set<CivilDate>();
  for (const [i, tier] of discount.tiers.entries()) {
    const at = `discount.tiers[${i}]`;
    if (!isCivilDate(tier.date)) return problem(`${at}.date`, 'must be a date YYYY-MM-DD');
    if (tier.date > dueDate) return problem(`${at}.date`, 'must be on or before dueDate');
    if (seen.has(tier.date)) return problem(`${at}.date`, 'must differ from the other tiers\' dates');
    seen.add(tier.date);
    if (!isPositive(tier.value)) return problem(`${at}.value`, 'must be greater than 0');
  }
  return null;
}

/**
 * The largest discount a payment can get from `today` to E. Per-day modes give the most on the earliest day;
 * with tiers, each tier dated today or later applies on its own date (a tier dated dueDate on E too).
 */
function largestDiscount(terms: DueDateTerms, today: CivilDate): bigint {
  const tierDates = terms.discount && 'tiers' in terms.discount ? terms.discount.tiers.map((t) => t.date) : [];
  let best = 0n;
  for (const day of [today, effectiveDueDate(terms.dueDate), ...tierDates]) {
    const discount = day >= today ? (duePartsOn(terms, day)?.discount ?? 0n) : 0n;
    if (discount > best) best = discount;
  }
  return best;
}

/**
 * The smallest amount a payment can bring, from `today` on: V − rebate − the largest discount. The creation
 * check keeps it above 0; the service also keeps it above the charge fee, which is computed on what is paid.
 */
export function smallestAmountDue(terms: DueDateTerms, today: CivilDate): number {
  const rebate = duePartsOn(terms, today)?.rebate ?? 0n;
  return Number(BigInt(terms.amount) - rebate - largestDiscount(terms, today));
}

/**
 * The creation check of due-date charges (docs/contract/due-date-charges.md#due-date-charges), beyond what
 * a schema can say: real dates, dueDate not before `today` (São Paulo) nor more than ten years after it, every value > 0, tiers dated on or before dueDate and distinct, rebate plus the
 * largest discount a payment can get from today to E below the amount, and the amount due on the last
 * day to pay (the largest there is) within what BACEN's `valor` text carries. Null when the terms pass.
 */
export function checkDueDateTerms(terms: DueDateTerms, today: CivilDate): TermsProblem | null {
  if (!isCivilDate(terms.dueDate)) return problem('dueDate', 'must be a date YYYY-MM-DD');
  if (terms.dueDate < today) return problem('dueDate', 'must be today or later (America/Sao_Paulo)');
  if (daysBetween(today, terms.dueDate) > MAX_DAYS_AHEAD) return problem('dueDate', `must be at most ${MAX_DAYS_AHEAD} days from today`);
  if (!Number.isSafeInteger(terms.daysAfterDue) || terms.daysAfterDue < 0 || terms.daysAfterDue > 365) {
    return problem('daysAfterDue', 'must be an integer from 0 to 365');
  }
  if (!isPositive(terms.amount) || terms.amount > MAX_BACEN_CENTS) return problem('amount', 'must be a positive integer of cents');
  for (const name of ['rebate', 'fine', 'interest', 'discount'] as const) {
    const rule = terms[name];
    if (rule && 'value' in rule && !isPositive(rule.value)) return problem(`${name}.value`, 'must be greater than 0');
  }
  const tiers = checkTiers(terms);
  if (tiers) return tiers;

  const amount = BigInt(terms.amount);
  const rebate = duePartsOn(terms, today)?.rebate ?? 0n;
  if (rebate >= amount) return problem('rebate', 'reaches the amount');
  if (rebate + largestDiscount(terms, today) >= amount) return problem('discount', 'rebate and discount reach the amount');
  // Fine and interest only grow with the days late, so the last day to pay has the largest amount due.
  const last = duePartsOn(terms, lastDayToPay(terms));
  if (last && totalOf(terms.amount, last) > BigInt(MAX_BACEN_CENTS)) {
    return problem(terms.interest ? 'interest' : 'fine', `makes the amount due on the last day to pay exceed ${MAX_BACEN_CENTS}`);
  }
  return null;
}
