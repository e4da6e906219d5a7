import { addDays, isCivilDate, saoPauloDayStart, type CivilDate } from '../calendar/index.js';
import { validationError } from '../platform/errors.js';
import { ISSUE_DAYS_BEFORE, MIN_START_DAYS, cycleDueDate, earliestStartDate, firstCycleDueFrom, hasCycle, lastCycle, type Frequency } from './cycle.rules.js';
import type { Journey, SubscriptionCreate } from './subscription.schemas.js';

/** A PUSH request the payer's bank has not answered expires after this many seconds, unless the merchant says otherwise. */
export const DEFAULT_REQUEST_EXPIRES_IN = 604_800;

/**
 * The checks of POST /subscriptions a schema cannot make (docs/contract/subscriptions.md#create), in the order
 * their messages list: exactly one of amount and minAmount, real dates, startDate at least 2 days after `today`,
 * endDate not before it, and the fields each journey needs and no other may carry. Throws VALIDATION_ERROR.
 */
export function checkSubscriptionCreate(input: SubscriptionCreate, today: CivilDate): void {
  if (input.amount !== undefined && input.minAmount !== undefined) throw validationError('amount', 'give amount or minAmount, not both');
  if (input.amount === undefined && input.minAmount === undefined) throw validationError('amount', 'required (or minAmount, for a variable amount)');
  if (!isCivilDate(input.startDate)) throw validationError('startDate', 'must be a date YYYY-MM-DD');
  const earliest = earliestStartDate(today);
  if (input.startDate < earliest) throw validationError('startDate', `must be at least ${MIN_START_DAYS} days after today (${earliest} or later)`);
  if (input.endDate !== undefined) {
    if (!isCivilDate(input.endDate)) throw validationError('endDate', 'must be a date YYYY-MM-DD');
    if (input.endDate < input.startDate) throw validationError('endDate', 'must be on or after startDate');
  }
  journeyField('firstPayment', input.firstPayment !== undefined, input.journey, 'QR_WITH_PAYMENT');
  journeyField('payerAccount', input.payerAccount !== undefined, input.journey, 'PUSH');
  if (input.requestExpiresIn !== undefined && input.journey !== 'PUSH') throw validationError('requestExpiresIn', 'only for journey PUSH');
}

function journeyField(field: string, given: boolean, journey: Journey, needs: Journey): void {
  if (journey === needs && !given) throw validationError(field, `required for journey ${needs}`);
  if (journey !== needs && given) throw validationError(field, `only for journey ${needs}`);
}

/**
 * Until when a CREATED subscription waits for its authorization: the first instant of startDate (São Paulo),
 * or the PUSH request's expiry when that comes first.
 */
export function authorizationDeadline(startDate: CivilDate, journey: Journey, requestExpiresIn: number | undefined, now: Date): Date {
  const start = saoPauloDayStart(startDate);
  if (journey !== 'PUSH') return start;
  const request = new Date(now.getTime() + (requestExpiresIn ?? DEFAULT_REQUEST_EXPIRES_IN) * 1000);
  return request < start ? request : start;
}

/** The São Paulo day a fixed-amount cycle is planned to be issued (10 days before it is due), or null when it does not exist. */
export function plannedIssueDay(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, n: number): CivilDate | null {
  return hasCycle(startDate, frequency, endDate, n) ? addDays(cycleDueDate(startDate, frequency, n), -ISSUE_DAYS_BEFORE) : null;
}

/**
 * The subscription's next due date (docs/contract/subscriptions.md#subscription-object): the first cycle due today or
 * later, whether its charge was issued yet or not; null when none is left.
 */
export const nextDueDate = (startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, today: CivilDate): CivilDate | null =>
  firstCycleDueFrom(startDate, frequency, endDate, today)?.dueDate ?? null;

/** The last cycle's due date; null for an open-ended subscription. */
export function lastDueDate(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null): CivilDate | null {
  const last = lastCycle(startDate, frequency, endDate);
  return last === null ? null : cycleDueDate(startDate, frequency, last);
}
