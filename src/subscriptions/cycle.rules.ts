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

/** Greater than every date: where a cycle past the calendar's last day (9999-12-31) sorts. */
const AFTER_EVERY_DATE = '9999-12-32';

/** The n-th cycle's nominal date, or null when it falls after the calendar's last day. */
function nominalOrNull(startDate: CivilDate, frequency: Frequency, n: number): CivilDate | null {
  try {
    return nominalCycleDate(startDate, frequency, n);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}

/**
 * The least cycle number for which `past` holds, `past` being monotonic in n (false … false, true …) and true once the
 * cycles leave the calendar: found by doubling, then halving — a few dozen dates, not one per cycle, since a date in
 * 9999 is some 400 000 weeks away and every request or sweep that asks must stay cheap.
 */
function firstCycleWhere(past: (n: number) => boolean): number {
  if (past(0)) return 0;
  let lo = 0;
  let hi = 1;
  while (!past(hi)) [lo, hi] = [hi, hi * 2];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (past(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The due dates of every cycle of a subscription with an end: those whose nominal date is on or before
 * endDate (the contract calls startDate "the first cycle's due date" before any business-day move, and
 * endDate ≥ startDate then always leaves at least one cycle). The last one may be due after endDate
 * when endDate is not a business day.
 */
export function cycleDueDates(startDate: CivilDate, frequency: Frequency, endDate: CivilDate): CivilDate[] {
  return Array.from({ length: lastCycle(startDate, frequency, endDate)! + 1 }, (_, n) => cycleDueDate(startDate, frequency, n));
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

/**
 * Whether cycle n exists: those with a nominal date ≤ endDate, or every one of an open-ended subscription — within the
 * calendar (a date after 9999-12-31 has no cycle).
 */
export const hasCycle = (startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, n: number): boolean =>
  (nominalOrNull(startDate, frequency, n) ?? AFTER_EVERY_DATE) <= (endDate ?? '9999-12-31');

/** The number of the last cycle of a subscription with an end (−1 when endDate is before startDate); null for an open-ended one. */
export function lastCycle(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null): number | null {
  if (endDate === null) return null;
  return firstCycleWhere((n) => (nominalOrNull(startDate, frequency, n) ?? AFTER_EVERY_DATE) > endDate) - 1;
}

/** The first cycle due on `date` or later, with its due date; null when the subscription has none left by then. */
export function firstCycleDueFrom(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, date: CivilDate): { n: number; dueDate: CivilDate } | null {
  // Due dates grow with n (a business-day move is never as long as a week), so the search can halve.
  const dueOrNull = (n: number): CivilDate | null => {
    const nominal = nominalOrNull(startDate, frequency, n);
    return nominal === null || (endDate !== null && nominal > endDate) ? null : nextBusinessDay(nominal);
  };
  const n = firstCycleWhere((k) => (dueOrNull(k) ?? AFTER_EVERY_DATE) >= date);
  const dueDate = dueOrNull(n);
  return dueDate === null ? null : { n, dueDate };
}

/** The cycle due on `dueDate`, or null when no cycle of the subscription is due that day. */
export function cycleOnDueDate(startDate: CivilDate, frequency: Frequency, endDate: CivilDate | null, dueDate: CivilDate): number | null {
  const first = firstCycleDueFrom(startDate, frequency, endDate, dueDate);
  return first?.dueDate === dueDate ? first.n : null;
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
