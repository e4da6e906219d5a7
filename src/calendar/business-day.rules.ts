import { addDays, weekday, type CivilDate } from './civil-date.rules.js';

/**
 * Easter Sunday of a Gregorian year by the anonymous Gregorian algorithm (Meeus/Jones/Butcher), valid for
 * every year from 1583.
 */
export function easterSunday(year: number): CivilDate {
  if (!Number.isInteger(year) || year < 1583 || year > 9999) throw new RangeError(`no Gregorian Easter for ${year}`);
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

// The national bank holidays (docs/contract/due-date-charges.md#business-days). Fixed ones as MM-DD; 20 Nov
// is national since 2024 (Lei 14.759/2023) and the rule applies it every year, as the contract lists it.
const FIXED = ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '11-20', '12-25'];
// Relative to Easter Sunday: Carnival Monday and Tuesday, Good Friday, Corpus Christi.
const FROM_EASTER = [-48, -47, -2, 60];

const byYear = new Map<number, ReadonlySet<CivilDate>>();

function holidaySet(year: number): ReadonlySet<CivilDate> {
  let set = byYear.get(year);
  if (!set) {
    const easter = easterSunday(year);
    set = new Set([...FIXED.map((md) => `${year}-${md}`), ...FROM_EASTER.map((days) => addDays(easter, days))]);
    byYear.set(year, set);
  }
  return set;
}

/** The national bank holidays of a year in date order: 13 dates, or 12 when Good Friday is 21 April (2000, 2079). */
export const bankHolidays = (year: number): CivilDate[] => [...holidaySet(year)].sort();

/** Not a Saturday, a Sunday or a national bank holiday. */
export function isBusinessDay(date: CivilDate): boolean {
  const day = weekday(date);
  return day !== 0 && day !== 6 && !holidaySet(Number(date.slice(0, 4))).has(date);
}

/** `date` itself when it is a business day, else the first business day after it. */
export function nextBusinessDay(date: CivilDate): CivilDate {
  let day = date;
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}
