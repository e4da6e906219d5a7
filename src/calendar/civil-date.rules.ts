/**
 * A civil date, `YYYY-MM-DD` (ISO 8601, years 0001–9999): a day of the calendar with no time and no time
 * zone. Every rule about due dates works on these strings, never on `Date`, whose local-time methods
 * depend on the machine's zone. Strings in this form also compare in date order (`a < b`).
 */
export type CivilDate = string;

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function split(text: string): [number, number, number] | null {
  const match = SHAPE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return [year, month, day];
}

/** True for a real day written `YYYY-MM-DD` (`2026-02-29` is not one). */
export const isCivilDate = (text: string): boolean => split(text) !== null;

function parts(date: CivilDate): [number, number, number] {
  const found = split(date);
  if (!found) throw new RangeError(`not a date YYYY-MM-DD: ${JSON.stringify(date)}`);
  return found;
}

function format(year: number, month: number, day: number): CivilDate {
  if (year < 1 || year > 9999) throw new RangeError(`year ${year} is outside 0001–9999`);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Days since 1970-01-01 (negative before it), proleptic Gregorian. Integer arithmetic after
 * H. Hinnant's `days_from_civil`: years start on 1 March so that the leap day ends the year.
 */
export function toDayNumber(date: CivilDate): number {
  const [y, m, d] = parts(date);
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The inverse of `toDayNumber` (Hinnant's `civil_from_days`). */
export function fromDayNumber(dayNumber: number): CivilDate {
  if (!Number.isSafeInteger(dayNumber)) throw new RangeError('a day number must be an integer');
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return format(yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day);
}

/** `date` plus `days` calendar days (negative: before it). */
export const addDays = (date: CivilDate, days: number): CivilDate => fromDayNumber(toDayNumber(date) + days);

/** Calendar days from `from` to `to`: positive when `to` is later. */
export const daysBetween = (from: CivilDate, to: CivilDate): number => toDayNumber(to) - toDayNumber(from);

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export const weekday = (date: CivilDate): number => (((toDayNumber(date) + 4) % 7) + 7) % 7;

/**
 * `date` plus `months` whole months keeping its day of the month, or the month's last day when the month
 * has no such day: 2026-01-31 + 1 → 2026-02-28, 2024-01-31 + 1 → 2024-02-29, 2026-03-31 + 1 → 2026-04-30.
 */
export function addMonths(date: CivilDate, months: number): CivilDate {
  if (!Number.isSafeInteger(months)) throw new RangeError('months must be an integer');
  const [y, m, d] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return format(year, month, Math.min(d, daysInMonth(year, month)));
}

