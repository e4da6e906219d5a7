import { addDays, addMonths, daysBetween, nextBusinessDay, type CivilDate } from '../calendar/index.js';

// When each cycle of a subscription is due and when its charge is issued, pure
// (docs/contract/subscriptions.md#subscriptions). Shared by the API, the scheduler, the simulator and the
// dashboard, so it imports nothing but the calendar.

export type Frequency = 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';

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
