import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, fromDayNumber, isBusinessDay, toDayNumber } from '../../src/calendar/index.js';
import {
  cycleDueDate, cycleDueDates, cycleIssueDate, cycleOnDueDate, hasCycle, lastCycle, nominalCycleDate, type Frequency,
} from '../../src/subscriptions/cycle.rules.js';

// Hand-checked against the calendar: Carnival 16–17 Feb 2026, 8–9 Feb 2027, 28–29 Feb 2028; Good Friday
// 3 Apr 2026; Corpus Christi 4 Jun 2026, 15 Jun 2028; 7 Sep, 12 Oct, 2, 15 and 20 Nov, 25 Dec, 1 Jan.

describe('cycle due dates', () => {
  it('monthly from the 31st: the month’s last day when it has none, from startDate each time, then the next business day', () => {
    const first = Array.from({ length: 13 }, (_, n) => [nominalCycleDate('2026-01-31', 'MONTHLY', n), cycleDueDate('2026-01-31', 'MONTHLY', n)]);
    expect(first).toEqual([
      ['2026-01-31', '2026-02-02'], // Saturday → Monday
      ['2026-02-28', '2026-03-02'], // Saturday → Monday (not 02-28 + 1 month = 03-28 cumulatively)
      ['2026-03-31', '2026-03-31'],
      ['2026-04-30', '2026-04-30'],
      ['2026-05-31', '2026-06-01'], // Sunday
      ['2026-06-30', '2026-06-30'],
      ['2026-07-31', '2026-07-31'],
      ['2026-08-31', '2026-08-31'],
      ['2026-09-30', '2026-09-30'],
      ['2026-10-31', '2026-11-03'], // Saturday → Monday 2 Nov is a holiday → Tuesday
      ['2026-11-30', '2026-11-30'],
      ['2026-12-31', '2026-12-31'],
      ['2027-01-31', '2027-02-01'], // Sunday
    ]);
  });

  it('monthly from 29 Jan of a leap year keeps the 29th in every month that has it', () => {
    expect([0, 1, 2, 12, 13].map((n) => nominalCycleDate('2028-01-29', 'MONTHLY', n))).toEqual([
      '2028-01-29',
      '2028-02-29',
      '2028-03-29',
      '2029-01-29',
      '2029-02-28',
    ]);
  });

  it.each([
    // frequency, startDate, n, nominal, due
    ['WEEKLY', '2026-02-02', 2, '2026-02-16', '2026-02-18'], // Carnival Monday → Ash Wednesday
    ['WEEKLY', '2026-03-27', 1, '2026-04-03', '2026-04-06'], // Good Friday → Monday
    ['WEEKLY', '2026-11-13', 1, '2026-11-20', '2026-11-23'], // Consciência Negra (Friday) → Monday
    ['WEEKLY', '2026-12-18', 2, '2027-01-01', '2027-01-04'],
    ['QUARTERLY', '2026-03-04', 1, '2026-06-04', '2026-06-05'], // Corpus Christi → Friday
    ['QUARTERLY', '2025-11-30', 1, '2026-02-28', '2026-03-02'],
    ['SEMIANNUAL', '2026-03-07', 1, '2026-09-07', '2026-09-08'], // Independence Day (Monday) → Tuesday
    ['SEMIANNUAL', '2026-08-31', 1, '2027-02-28', '2027-03-01'],
    ['ANNUAL', '2024-02-29', 1, '2025-02-28', '2025-02-28'],
    ['ANNUAL', '2024-02-29', 4, '2028-02-29', '2028-03-01'], // Carnival Tuesday 2028 (Easter 16 Apr)
    ['ANNUAL', '2025-12-25', 1, '2026-12-25', '2026-12-28'],
  ] as Array<[Frequency, string, number, string, string]>)('%s from %s, cycle %i: %s due %s', (frequency, start, n, nominal, due) => {
    expect(nominalCycleDate(start, frequency, n)).toBe(nominal);
    expect(cycleDueDate(start, frequency, n)).toBe(due);
  });

  it('the first cycle is startDate moved to a business day', () => {
    expect(cycleDueDate('2026-02-14', 'MONTHLY', 0)).toBe('2026-02-18'); // Saturday before Carnival
    expect(cycleDueDate('2026-03-10', 'WEEKLY', 0)).toBe('2026-03-10');
  });

  it('is always a business day within 5 days after the nominal date, and strictly later each cycle', () => {
    const frequencies: Frequency[] = ['WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'];
    fc.assert(
      fc.property(
        fc.integer({ min: toDayNumber('2026-01-01'), max: toDayNumber('2040-12-31') }).map(fromDayNumber),
        fc.constantFrom(...frequencies),
        fc.integer({ min: 0, max: 60 }),
        (start, frequency, n) => {
          const nominal = nominalCycleDate(start, frequency, n);
          const due = cycleDueDate(start, frequency, n);
          expect(isBusinessDay(due)).toBe(true);
          expect(daysBetween(nominal, due)).toBeGreaterThanOrEqual(0);
          expect(daysBetween(nominal, due)).toBeLessThanOrEqual(5);
          expect(due < cycleDueDate(start, frequency, n + 1)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('the cycles up to endDate', () => {
  it('are those whose nominal date is on or before endDate', () => {
    expect(cycleDueDates('2026-01-31', 'MONTHLY', '2026-05-31')).toEqual(['2026-02-02', '2026-03-02', '2026-03-31', '2026-04-30', '2026-06-01']);
    expect(cycleDueDates('2026-01-31', 'MONTHLY', '2026-05-30')).toEqual(['2026-02-02', '2026-03-02', '2026-03-31', '2026-04-30']);
    expect(cycleDueDates('2026-03-02', 'WEEKLY', '2026-03-23')).toEqual(['2026-03-02', '2026-03-09', '2026-03-16', '2026-03-23']);
    expect(cycleDueDates('2026-03-02', 'WEEKLY', '2026-03-22')).toEqual(['2026-03-02', '2026-03-09', '2026-03-16']);
    // 2028-06-15 is Corpus Christi (Easter 16 Apr + 60)
    expect(cycleDueDates('2026-06-15', 'ANNUAL', '2029-06-14')).toEqual(['2026-06-15', '2027-06-15', '2028-06-16']);
  });

  it('endDate = startDate on a Saturday still makes one cycle, due the Monday after', () => {
    expect(cycleDueDates('2026-03-07', 'MONTHLY', '2026-03-07')).toEqual(['2026-03-09']);
  });

  it('count like the nominal dates do', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: toDayNumber('2026-01-01'), max: toDayNumber('2030-12-31') }).map(fromDayNumber),
        fc.constantFrom<Frequency>('WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'),
        fc.integer({ min: 0, max: 800 }),
        (start, frequency, length) => {
          const end = addDays(start, length);
          const dates = cycleDueDates(start, frequency, end);
          expect(dates.length).toBeGreaterThanOrEqual(1);
          expect(nominalCycleDate(start, frequency, dates.length - 1) <= end).toBe(true);
          expect(nominalCycleDate(start, frequency, dates.length) > end).toBe(true);
          dates.forEach((d, n) => expect(d).toBe(cycleDueDate(start, frequency, n)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('far dates', () => {
  it('an end in 9999 counts its cycles without walking them, and without stepping past the calendar', () => {
    const started = performance.now();
    const last = lastCycle('2026-12-01', 'WEEKLY', '9999-12-31')!;
    expect(nominalCycleDate('2026-12-01', 'WEEKLY', last) <= '9999-12-31').toBe(true);
    expect(daysBetween(nominalCycleDate('2026-12-01', 'WEEKLY', last), '9999-12-31')).toBeLessThan(7);
    expect(hasCycle('2026-12-01', 'WEEKLY', '9999-12-31', last + 1)).toBe(false);
    expect(cycleOnDueDate('2026-12-01', 'WEEKLY', '9999-12-31', '9999-12-31')).toBe(null);
    expect(cycleOnDueDate('2026-12-01', 'WEEKLY', null, '9999-12-31')).toBe(null);
    expect(cycleOnDueDate('2026-12-01', 'MONTHLY', null, '9999-12-01')).toBe(95_676);
    expect(hasCycle('2026-12-01', 'ANNUAL', '9999-12-31', 7_974)).toBe(false);
    expect([0, 1].map((n) => hasCycle('9999-12-31', 'WEEKLY', null, n))).toEqual([true, false]); // open-ended, at the calendar's end
    expect(performance.now() - started).toBeLessThan(200); // walking every week of it took over a second
  });

  it('find the cycle due on a day as a walk from startDate does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: toDayNumber('2026-01-01'), max: toDayNumber('2030-12-31') }).map(fromDayNumber),
        fc.constantFrom<Frequency>('WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'),
        fc.option(fc.integer({ min: 0, max: 800 }), { nil: null }),
        fc.integer({ min: -5, max: 900 }),
        (start, frequency, length, offset) => {
          const end = length === null ? null : addDays(start, length);
          const day = addDays(start, offset);
          let walked: number | null = null;
          for (let n = 0; hasCycle(start, frequency, end, n) && cycleDueDate(start, frequency, n) <= day; n++) {
            if (cycleDueDate(start, frequency, n) === day) walked = n;
          }
          expect(cycleOnDueDate(start, frequency, end, day)).toBe(walked);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('the day a fixed-amount cycle’s charge is issued', () => {
  it.each([
    ['2026-03-31', '2026-03-01', '2026-03-21'], // 10 days before
    ['2026-03-31', '2026-03-21', '2026-03-21'],
    ['2026-03-31', '2026-03-22', '2026-03-22'], // closer: at once
    ['2026-03-31', '2026-03-29', '2026-03-29'], // 2 days before: still in time
    ['2026-03-31', '2026-03-30', null], // 1 day before: too late
    ['2026-03-31', '2026-03-31', null],
    ['2026-03-02', '2026-02-01', '2026-02-20'], // across a month end
  ])('due %s, today %s → %s', (due, today, expected) => {
    expect(cycleIssueDate(due, today)).toBe(expected);
  });
});
