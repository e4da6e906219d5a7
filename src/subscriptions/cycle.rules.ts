import { addDays, addMonths, daysBetween, nextBusinessDay, type CivilDate } from '../calendar/index.js';

// When each cycle of a subscription is due and when its charge is issued, pure
// (docs/contract/subscriptions.md#subscriptions). Shared by the API, the scheduler, the simulator and the
// dashboard, so it imports nothing but the calendar.

/** startDate, the first cycle's due date, is at least this many days after today (São Paulo). */
export const MIN_START_DAYS = 2;
/** The earliest startDate a subscription created on `today` (São Paulo) may have: the API refuses an earlier one, the dashboard offers none. */
export const earliestStartDate = (today: CivilDate): CivilDate => addDays(today, MIN_START_DAYS);

export const FREQUENCIES = ['WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

const MONTHS: Record<Exclude<Frequency, 'WEEKLY'>, number> = { MONTHLY: 1, QUARTERLY: 3, SEMIANNUAL: 6, ANNUAL: 12 };

/**
 * The n-th cycle's nominal date (n = 0 is startDate): whole periods counted from startDate each time, not
 * from the previous cycle, so a month end comes back: 31 Jan → 28/29 Feb → 31 Mar.
 */
export function nominalCycleDate(startDate: CivilDate, frequency: Frequency, n: number): CivilDate {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('a cycle number is an integer from 0');
  return frequency === 'WEEKLY' ? addDays(startDate, 7 * n) : addMonths(startDate, MONTHS[frequency] * n);
}

/** The n-th cycle's due date: its nominal date moved to the next business day (the calendar of due-date charges). */
export const cycleDueDate = (startDate: CivilDate, frequency: Frequency, n: number): CivilDate =>
  nextBusinessDay(nominalCycleDate(startDate, frequency, n));

/**
 * The due dates of every cycle of a subscription with an end: those whose nominal date is on or before
 * endDate (the contract calls startDate "the first cycle's due date" before any business-day move, and
 * endDate ≥ startDate then always leaves at least one cycle). The last one may be due after endDate
 * when endDate is not a business day.
 */
export function cycleDueDates(startDate: CivilDate, frequency: Frequency, endDate: CivilDate): CivilDate[] {
  const dates: CivilDate[] = [];
  for (let n = 0; nominalCycleDate(startDate, frequency, n) <= endDate; n++) dates.push(cycleDueDate(startDate, frequency, n));
  return dates;
}

/** Pixgate issues a fixed-amount cycle's charge this many days before its due date. */
export const ISSUE_DAYS_BEFORE = 10;
/** … and never later than this many days before it (BACEN: a cobr reaches the payer 2 to 10 days ahead). */
export const LATEST_ISSUE_DAYS_BEFORE = 2;

/**
 * The São Paulo day on which a fixed-amount cycle's charge is issued: 10 days before its due date, or
 * `today` when that is closer; null when `today` is less than 2 days before the due date (too late).
 */
export function cycleIssueDate(dueDate: CivilDate, today: CivilDate): CivilDate | null {
  if (daysBetween(today, dueDate) < LATEST_ISSUE_DAYS_BEFORE) return null;
  const planned = addDays(dueDate, -ISSUE_DAYS_BEFORE);
  return planned > today ? planned : today;
}

/** Whether cycle n exists: every cycle of an open-ended subscription, those with a nominal date ≤ endDate otherwise. */
export const hasCycle = (startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, n: number): boolean =>
  endDate === null || nominalCycleDate(startDate, frequency, n) <= endDate;

/** The number of the last cycle of a subscription with an end; null for an open-ended one. */
export const lastCycle = (startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null): number | null =>
  endDate === null ? null : cycleDueDates(startDate, frequency, endDate).length - 1;

/** The cycle due on `dueDate`, or null when no cycle of the subscription is due that day. */
export function cycleOnDueDate(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, dueDate: CivilDate): number | null {
  for (let n = 0; hasCycle(startDate, frequency, endDate, n); n++) {
    const due = cycleDueDate(startDate, frequency, n);
    if (due === dueDate) return n;
    if (due > dueDate) return null;
  }
  return null;
}

/** The first cycle from `n` on that can still be issued on `today` (2 or more days before its due date); null when none is left. */
export function firstIssuableCycle(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, n: number, today: CivilDate): number | null {
  for (let k = n; hasCycle(startDate, frequency, endDate, k); k++) {
    if (cycleIssueDate(cycleDueDate(startDate, frequency, k), today) !== null) return k;
  }
  return null;
}

export const RETRY_POLICIES = ['NONE', 'THREE_IN_7_DAYS'] as const;
export type RetryPolicy = (typeof RETRY_POLICIES)[number];

/** Under THREE_IN_7_DAYS the payer's bank is asked again at most this many times … */
export const MAX_RETRIES = 3;
/** … each on one of this many calendar days after the due date. */
export const RETRY_WINDOW_DAYS = 7;

/** The last São Paulo day a cycle's charge can be debited: its due date, or the end of the retry window. */
export const lastDebitDay = (dueDate: CivilDate, policy: RetryPolicy): CivilDate =>
  policy === 'THREE_IN_7_DAYS' ? addDays(dueDate, RETRY_WINDOW_DAYS) : dueDate;

/**
 * After a failed debit attempt on `attemptDate`, the day of the next one, or null when the charge has failed for
 * good: never under NONE; under THREE_IN_7_DAYS the day after the later of the attempt and the due date, while
 * fewer than MAX_RETRIES retries were made (`failures` counts the failed attempts, this one included) and that
 * day is inside the window.
 */
export function retryDate(dueDate: CivilDate, policy: RetryPolicy, attemptDate: CivilDate, failures: number): CivilDate | null {
  if (policy !== 'THREE_IN_7_DAYS' || failures > MAX_RETRIES) return null;
  const next = addDays(attemptDate > dueDate ? attemptDate : dueDate, 1);
  return next <= lastDebitDay(dueDate, policy) ? next : null;
}
