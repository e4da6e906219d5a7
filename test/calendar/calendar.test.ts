import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  bankHolidays,
  daysBetween,
  easterSunday,
  fromDayNumber,
  isBusinessDay,
  isCivilDate,
  nextBusinessDay,
  saoPauloDate,
  saoPauloDayEnd,
  saoPauloDayStart,
  toDayNumber,
  weekday,
} from '../../src/calendar/index.js';

// Dates drawn from 1900–2100 as day numbers; the reference below is the JavaScript engine's UTC calendar.
const dayNumbers = fc.integer({ min: toDayNumber('1900-01-01'), max: toDayNumber('2100-12-31') });
const isoOfUtc = (dayNumber: number) => new Date(dayNumber * 86_400_000).toISOString().slice(0, 10);

describe('civil dates', () => {
  it('accepts real days only', () => {
    for (const ok of ['2026-01-01', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) expect(isCivilDate(ok)).toBe(true);
    for (const bad of ['2026-02-29', '1900-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '2026-1-01', '26-01-01', ' 2026-01-01', '0000-01-01', '2026-01-01T00:00']) {
      expect(isCivilDate(bad)).toBe(false);
    }
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
  });

  it('numbers days from 1970-01-01 like the UTC calendar does', () => {
    expect(toDayNumber('1970-01-01')).toBe(0);
    expect(toDayNumber('2026-11-27')).toBe(Date.UTC(2026, 10, 27) / 86_400_000);
    fc.assert(fc.property(dayNumbers, (n) => fromDayNumber(n) === isoOfUtc(n) && toDayNumber(isoOfUtc(n)) === n), { numRuns: 2000 });
  });

  it('adds days and counts them back', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(daysBetween('2026-01-01', '2027-01-01')).toBe(365);
    expect(daysBetween('2024-03-01', '2024-02-01')).toBe(-29);
    fc.assert(
      fc.property(dayNumbers, fc.integer({ min: -800, max: 800 }), (n, k) => {
        const date = fromDayNumber(n);
        return daysBetween(date, addDays(date, k)) === k && addDays(date, k) === isoOfUtc(n + k);
      }),
    );
  });

  it('knows the weekday (0 = Sunday)', () => {
    expect(weekday('2026-11-27')).toBe(5); // a Friday
    expect(weekday('1970-01-01')).toBe(4);
    expect(weekday('1969-12-28')).toBe(0);
    fc.assert(fc.property(dayNumbers, (n) => weekday(fromDayNumber(n)) === new Date(n * 86_400_000).getUTCDay()));
  });

  it.each([
    ['2026-01-31', 1, '2026-02-28'],
    ['2024-01-31', 1, '2024-02-29'],
    ['2026-01-31', 2, '2026-03-31'],
    ['2026-03-31', 1, '2026-04-30'],
    ['2026-08-31', 6, '2027-02-28'],
    ['2026-11-15', 3, '2027-02-15'],
    ['2026-05-30', 12, '2027-05-30'],
    ['2024-02-29', 12, '2025-02-28'],
    ['2024-02-29', 48, '2028-02-29'],
    ['2026-03-31', -1, '2026-02-28'],
    ['2026-01-15', -13, '2024-12-15'],
  ])('addMonths(%s, %i) = %s', (date, months, expected) => {
    expect(addMonths(date, months)).toBe(expected);
  });

  it('addMonths keeps the day when the month has it, else gives the last day', () => {
    fc.assert(
      fc.property(dayNumbers, fc.integer({ min: -120, max: 120 }), (n, k) => {
        const date = fromDayNumber(n);
        const out = addMonths(date, k);
        const monthIndex = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
        const day = Number(date.slice(8));
        const outDay = Number(out.slice(8));
        const lastOfMonth = addDays(out, 1).slice(8) === '01';
        return monthIndex(out) - monthIndex(date) === k && (outDay === day || (outDay < day && lastOfMonth));
      }),
    );
  });
});

describe('Easter and the bank holidays', () => {
  it.each([
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2028, '2028-04-16'],
    [2029, '2029-04-01'],
    [2030, '2030-04-21'],
    // extremes of the Gregorian range of Easter, 22 March and 25 April
    [2285, '2285-03-22'],
    [2038, '2038-04-25'],
    [1943, '1943-04-25'],
  ])('Easter %i is %s', (year, date) => {
    expect(easterSunday(year)).toBe(date);
    expect(weekday(date)).toBe(0);
  });

  it('2026: Carnival 16–17 Feb, Good Friday 3 Apr, Corpus Christi 4 Jun, 20 Nov, and the fixed ones', () => {
    expect(bankHolidays(2026)).toEqual([
      '2026-01-01',
      '2026-02-16',
      '2026-02-17',
      '2026-04-03',
      '2026-04-21',
      '2026-05-01',
      '2026-06-04',
      '2026-09-07',
      '2026-10-12',
      '2026-11-02',
      '2026-11-15',
      '2026-11-20',
      '2026-12-25',
    ]);
  });

  it('2027: Carnival 8–9 Feb, Good Friday 26 Mar, Corpus Christi 27 May', () => {
    const h = bankHolidays(2027);
    for (const d of ['2027-02-08', '2027-02-09', '2027-03-26', '2027-05-27']) expect(h).toContain(d);
    expect(h).toHaveLength(13);
  });

  it('Good Friday on Tiradentes (2000, 2079) gives 12 dates', () => {
    expect(easterSunday(2000)).toBe('2000-04-23');
    expect(easterSunday(2079)).toBe('2079-04-23');
    expect(bankHolidays(2000)).toHaveLength(12);
  });

  it.each([
    ['2026-11-27', true], // Friday
    ['2026-11-28', false], // Saturday
    ['2026-11-29', false], // Sunday
    ['2026-11-20', false], // Friday, Consciência Negra
    ['2026-02-16', false], // Carnival Monday
    ['2026-02-17', false], // Carnival Tuesday
    ['2026-02-18', true], // Ash Wednesday is a business day
    ['2026-04-03', false], // Good Friday
    ['2026-06-04', false], // Corpus Christi
    ['2026-06-05', true],
    ['2026-12-24', true],
    ['2026-12-31', true],
  ])('isBusinessDay(%s) = %s', (date, expected) => {
    expect(isBusinessDay(date)).toBe(expected);
  });

  it.each([
    ['2026-11-27', '2026-11-27'],
    ['2026-11-28', '2026-11-30'],
    ['2026-02-14', '2026-02-18'], // Saturday before Carnival → Ash Wednesday
    ['2026-04-03', '2026-04-06'], // Good Friday → Monday
    ['2026-11-20', '2026-11-23'],
    ['2026-12-25', '2026-12-28'],
    ['2027-01-01', '2027-01-04'],
    ['2020-12-25', '2020-12-28'],
  ])('nextBusinessDay(%s) = %s', (date, expected) => {
    expect(nextBusinessDay(date)).toBe(expected);
  });

  it('nextBusinessDay is the first business day on or after the date', () => {
    fc.assert(
      fc.property(fc.integer({ min: toDayNumber('2000-01-01'), max: toDayNumber('2099-12-31') }), (n) => {
        const date = fromDayNumber(n);
        const next = nextBusinessDay(date);
        if (!isBusinessDay(next) || next < date) return false;
        for (let d = date; d < next; d = addDays(d, 1)) if (isBusinessDay(d)) return false;
        return daysBetween(date, next) <= 5; // the longest run: Carnival's Saturday to Tuesday
      }),
      { numRuns: 3000 },
    );
  });
});

describe('São Paulo days', () => {
  it.each([
    ['2026-11-27T02:59:59.999Z', '2026-11-26'],
    ['2026-11-27T03:00:00.000Z', '2026-11-27'],
    ['2026-12-31T23:59:59.000Z', '2026-12-31'],
    ['2027-01-01T02:59:59.999Z', '2026-12-31'],
    ['2027-01-01T03:00:00.000Z', '2027-01-01'],
  ])('%s is %s there', (iso, date) => {
    expect(saoPauloDate(new Date(iso))).toBe(date);
  });

  it('a day ends at its last millisecond, just before the next one’s first instant (−03:00 since 2019)', () => {
    expect(saoPauloDayStart('2026-11-27').toISOString()).toBe('2026-11-27T03:00:00.000Z');
    expect(saoPauloDayEnd('2026-11-27').toISOString()).toBe('2026-11-28T02:59:59.999Z');
    expect(saoPauloDayEnd('2026-12-31').toISOString()).toBe('2027-01-01T02:59:59.999Z');
  });

  it('follows the zone database through the old daylight-saving changes at midnight', () => {
    // 2018-11-04: clocks went from 00:00 to 01:00 (−02:00), so that day began at 01:00 local.
    expect(saoPauloDayStart('2018-11-04').toISOString()).toBe('2018-11-04T03:00:00.000Z');
    expect(saoPauloDayStart('2018-11-05').toISOString()).toBe('2018-11-05T02:00:00.000Z');
    // 2019-02-17: 00:00 (−02:00) went back to 23:00 of the 16th; the 17th began at 00:00 −03:00.
    expect(saoPauloDayStart('2019-02-16').toISOString()).toBe('2019-02-16T02:00:00.000Z');
    expect(saoPauloDayStart('2019-02-17').toISOString()).toBe('2019-02-17T03:00:00.000Z');
  });

  it('every day from 2015 to 2035 starts where the previous instant is still the day before', () => {
    for (let n = toDayNumber('2015-01-01'); n <= toDayNumber('2035-12-31'); n++) {
      const date = fromDayNumber(n);
      const start = saoPauloDayStart(date).getTime();
      expect(saoPauloDate(new Date(start))).toBe(date);
      expect(saoPauloDate(new Date(start - 1))).toBe(addDays(date, -1));
    }
  });
});
