import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, fromDayNumber, toDayNumber } from '../../src/calendar/index.js';
import {
  amountDue,
  dueDateExpiresAt,
  effectiveDueDate,
  lastDayToPay,
  type Discount,
  type DueDateTerms,
  type Fine,
  type Interest,
  type Rebate,
} from '../../src/charges/due-date.rules.js';
import { checkDueDateTerms, MAX_BACEN_CENTS } from '../../src/charges/due-date-check.rules.js';
import { naiveAmountDue } from './due-date-naive.js';

// Every expected amount below was computed by hand (the arithmetic is in the comments); the calendar of
// 2026: Carnival 16–17 Feb, Good Friday 3 Apr, Corpus Christi 4 Jun; 7 Mar is a Saturday.

/** [day, amountDue, rebate, discount, fine, interest], or [day, null] when not payable. */
type Row = [string, number, number, number, number, number] | [string, null];

function expectTable(terms: DueDateTerms, rows: Row[]) {
  for (const [day, total, rebate, discount, fine, interest] of rows) {
    const got = amountDue(terms, day);
    const want = total === null ? null : { amountDue: total, breakdown: { original: terms.amount, rebate, discount, fine, interest } };
    expect({ day, got }).toEqual({ day, got: want });
    expect({ day, naive: naiveAmountDue(terms, day) }).toEqual({ day, naive: want });
  }
}

describe('effective due date, last day to pay, expiresAt', () => {
  // BACEN's examples A–G under `validadeAposVencimento` (API Pix 2.9.0): the last day accepted.
  it.each([
    ['A', '2020-10-20', 4, '2020-10-20', '2020-10-26'],
    ['B', '2020-12-25', 0, '2020-12-28', '2020-12-28'],
    ['C', '2020-12-25', 1, '2020-12-28', '2020-12-29'],
    ['D', '2020-12-25', 3, '2020-12-28', '2020-12-31'],
    ['E', '2020-12-25', 4, '2020-12-28', '2021-01-04'],
    ['F', '2021-08-27', 5, '2021-08-27', '2021-09-01'],
    ['G', '2021-08-28', 5, '2021-08-30', '2021-09-06'],
  ])('example %s: due %s + %i days → E %s, L %s', (_name, dueDate, daysAfterDue, e, l) => {
    expect(effectiveDueDate(dueDate)).toBe(e);
    expect(lastDayToPay({ dueDate, daysAfterDue })).toBe(l);
    const terms = { amount: 10_000, dueDate, daysAfterDue };
    // Every day from the due date to L is accepted, the day after is refused.
    for (let d = dueDate; d <= l; d = addDays(d, 1)) expect(amountDue(terms, d)).not.toBeNull();
    expect(amountDue(terms, addDays(l, 1))).toBeNull();
  });

  it.each([
    ['2026-02-16', 0, '2026-02-18', '2026-02-18'], // due on Carnival Monday → Ash Wednesday
    ['2026-02-13', 1, '2026-02-13', '2026-02-18'], // Fri + 1 = Sat 14 → Wed 18
    ['2026-03-07', 5, '2026-03-09', '2026-03-16'], // Sat → Mon 9; + 5 = Sat 14 → Mon 16
    ['2026-04-02', 1, '2026-04-02', '2026-04-06'], // Thu + 1 = Good Friday → Mon 6
    ['2026-11-19', 1, '2026-11-19', '2026-11-23'], // Thu + 1 = 20 Nov → Mon 23
    ['2026-12-31', 365, '2026-12-31', '2027-12-31'],
  ])('due %s + %i days → E %s, L %s', (dueDate, daysAfterDue, e, l) => {
    expect(effectiveDueDate(dueDate)).toBe(e);
    expect(lastDayToPay({ dueDate, daysAfterDue })).toBe(l);
  });

  it('expiresAt is the end of L in São Paulo', () => {
    expect(dueDateExpiresAt({ dueDate: '2026-03-10', daysAfterDue: 30 }).toISOString()).toBe('2026-04-10T02:59:59.999Z');
    expect(dueDateExpiresAt({ dueDate: '2026-02-16', daysAfterDue: 0 }).toISOString()).toBe('2026-02-19T02:59:59.999Z');
  });
});

describe('amountDue, by hand', () => {
  it('weekday due date: FIXED rebate, FIXED_UNTIL tiers, PERCENT fine, PERCENT_PER_MONTH interest', () => {
    // V = R$ 1.000,00, due Tue 2026-03-10, L = 03-10 + 30 = Thu 04-09. Rebate R$ 10,00; discount R$ 50,00
    // until 03-01 and R$ 20,00 until 03-10; fine 2 %; interest 1 % a month.
    const terms: DueDateTerms = {
      amount: 100_000,
      dueDate: '2026-03-10',
      daysAfterDue: 30,
      rebate: { mode: 'FIXED', value: 1_000 },
      discount: { mode: 'FIXED_UNTIL', tiers: [{ date: '2026-03-01', value: 5_000 }, { date: '2026-03-10', value: 2_000 }] },
      fine: { mode: 'PERCENT', value: 200 },
      interest: { mode: 'PERCENT_PER_MONTH', value: 100 },
    };
    expectTable(terms, [
      ['2026-02-20', 94_000, 1_000, 5_000, 0, 0], // first tier
      ['2026-03-01', 94_000, 1_000, 5_000, 0, 0], // its last day
      ['2026-03-02', 97_000, 1_000, 2_000, 0, 0], // second tier
      ['2026-03-09', 97_000, 1_000, 2_000, 0, 0], // the day before
      ['2026-03-10', 97_000, 1_000, 2_000, 0, 0], // on the due date
      // the day after: fine 100000 × 200 / 10000 = 2000; interest ⌊100000 × 100 × 1 / 300000⌋ = ⌊33.3⌋ = 33
      ['2026-03-11', 101_033, 1_000, 0, 2_000, 33],
      // 30 days late: ⌊100000 × 100 × 30 / 300000⌋ = 1000
      ['2026-04-09', 102_000, 1_000, 0, 2_000, 1_000],
      ['2026-04-10', null],
    ]);
  });

  it('Saturday due date: the tier dated dueDate counts as dated E (Monday); FIXED fine, AMOUNT_PER_DAY interest', () => {
    // V = R$ 250,00, due Sat 2026-03-07 → E = Mon 03-09; L = 03-09 + 5 = Sat 14 → Mon 16.
    // Discount 5 % until 03-02, 2 % until the due date; fine R$ 5,00; interest R$ 0,10 a day.
    const terms: DueDateTerms = {
      amount: 25_000,
      dueDate: '2026-03-07',
      daysAfterDue: 5,
      discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: '2026-03-02', value: 500 }, { date: '2026-03-07', value: 200 }] },
      fine: { mode: 'FIXED', value: 500 },
      interest: { mode: 'AMOUNT_PER_DAY', value: 10 },
    };
    expectTable(terms, [
      ['2026-03-02', 23_750, 0, 1_250, 0, 0], // 25000 × 5 % = 1250
      ['2026-03-03', 24_500, 0, 500, 0, 0], // 25000 × 2 % = 500
      ['2026-03-06', 24_500, 0, 500, 0, 0], // Friday, the day before the due date
      ['2026-03-07', 24_500, 0, 500, 0, 0], // Saturday, the due date
      ['2026-03-08', 24_500, 0, 500, 0, 0], // Sunday
      ['2026-03-09', 24_500, 0, 500, 0, 0], // Monday = E: the tier dated 03-07 still applies
      ['2026-03-10', 25_510, 0, 0, 500, 10], // one day late
      ['2026-03-14', 25_550, 0, 0, 500, 50], // Saturday, five days late, still payable
      ['2026-03-16', 25_570, 0, 0, 500, 70], // L, seven days late
      ['2026-03-17', null],
    ]);
  });

  it('due on Carnival Monday: AMOUNT_PER_DAY_EARLY counts calendar days to E (Ash Wednesday)', () => {
    // V = R$ 1.000,00, due Mon 2026-02-16 → E = Wed 02-18. Discount R$ 0,50 per day early.
    const base = { amount: 100_000, dueDate: '2026-02-16', discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 50 } as Discount };
    const late = { fine: { mode: 'PERCENT', value: 200 } as Fine, interest: { mode: 'PERCENT_PER_DAY', value: 3 } as Interest };
    expectTable({ ...base, ...late, daysAfterDue: 0 }, [
      ['2026-02-13', 99_750, 0, 250, 0, 0], // Friday, 5 days early
      ['2026-02-15', 99_850, 0, 150, 0, 0], // 3 days early
      ['2026-02-16', 99_900, 0, 100, 0, 0], // the due date, a holiday: 2 days early
      ['2026-02-17', 99_950, 0, 50, 0, 0],
      ['2026-02-18', 100_000, 0, 0, 0, 0], // E
      ['2026-02-19', null], // daysAfterDue 0: L = E, so the fine can never apply
    ]);
    // daysAfterDue 2: L = Fri 02-20. Fine 2 % = 2000; interest 0.03 % a day: ⌊100000 × 3 × n / 10000⌋ = 30 n.
    expectTable({ ...base, ...late, daysAfterDue: 2 }, [
      ['2026-02-18', 100_000, 0, 0, 0, 0],
      ['2026-02-19', 102_030, 0, 0, 2_000, 30],
      ['2026-02-20', 102_060, 0, 0, 2_000, 60],
      ['2026-02-21', null],
    ]);
  });

  it('PERCENT rebate, PERCENT_PER_DAY_EARLY and PERCENT_PER_YEAR: each part floored alone, one floor per product', () => {
    // V = R$ 123,45, due Mon 2026-06-01, L = 06-01 + 30 = Wed 07-01. Rebate 1.5 %: ⌊12345 × 150 / 10000⌋
    // = ⌊185.175⌋ = 185. Discount 0.07 % a day early; fine 1.99 %; interest 12 % a year.
    const terms: DueDateTerms = {
      amount: 12_345,
      dueDate: '2026-06-01',
      daysAfterDue: 30,
      rebate: { mode: 'PERCENT', value: 150 },
      discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 7 },
      fine: { mode: 'PERCENT', value: 199 },
      interest: { mode: 'PERCENT_PER_YEAR', value: 1_200 },
    };
    expectTable(terms, [
      // 30 days early: ⌊12345 × 7 × 30 / 10000⌋ = ⌊259.245⌋ = 259 (a floor per day would give 8 × 30 = 240)
      ['2026-05-02', 11_901, 185, 259, 0, 0],
      ['2026-05-31', 12_152, 185, 8, 0, 0], // 1 day: ⌊8.6415⌋ = 8
      ['2026-06-01', 12_160, 185, 0, 0, 0],
      // fine ⌊12345 × 199 / 10000⌋ = ⌊245.6655⌋ = 245; interest ⌊12345 × 1200 × 1 / 3650000⌋ = ⌊4.06⌋ = 4
      ['2026-06-02', 12_409, 185, 0, 245, 4],
      // 30 days: ⌊12345 × 1200 × 30 / 3650000⌋ = ⌊121.76⌋ = 121
      ['2026-07-01', 12_526, 185, 0, 245, 121],
      ['2026-07-02', null],
    ]);
  });

  it('due on Christmas (BACEN example E): FIXED fine and PERCENT_PER_DAY interest from E, not from the due date', () => {
    // V = R$ 100,00, due Fri 2020-12-25 → E = Mon 12-28, L = 2021-01-04. Fine R$ 2,00; interest 0.33 % a day.
    const terms: DueDateTerms = {
      amount: 10_000,
      dueDate: '2020-12-25',
      daysAfterDue: 4,
      fine: { mode: 'FIXED', value: 200 },
      interest: { mode: 'PERCENT_PER_DAY', value: 33 },
    };
    expectTable(terms, [
      ['2020-12-24', 10_000, 0, 0, 0, 0],
      ['2020-12-25', 10_000, 0, 0, 0, 0],
      ['2020-12-28', 10_000, 0, 0, 0, 0],
      ['2020-12-29', 10_233, 0, 0, 200, 33], // ⌊10000 × 33 × 1 / 10000⌋ = 33
      ['2021-01-01', 10_332, 0, 0, 200, 132], // a holiday, 4 days late, payable
      ['2021-01-04', 10_431, 0, 0, 200, 231], // 7 days late
      ['2021-01-05', null],
    ]);
  });

  it('without rules the amount is V until L', () => {
    expectTable({ amount: 5_000, dueDate: '2026-11-20', daysAfterDue: 0 }, [
      ['2026-11-19', 5_000, 0, 0, 0, 0],
      ['2026-11-23', 5_000, 0, 0, 0, 0], // 20 Nov is a holiday: E = L = Mon 23
      ['2026-11-24', null],
    ]);
  });
});

describe('the creation check', () => {
  const today = '2026-01-10';
  const base: DueDateTerms = { amount: 10_000, dueDate: '2026-03-10', daysAfterDue: 30 };
  const check = (extra: Partial<DueDateTerms>, on = today) => {
    const p = checkDueDateTerms({ ...base, ...extra }, on);
    return p && `${p.field}: ${p.reason}`;
  };

  it('accepts sound terms', () => {
    expect(check({})).toBeNull();
    expect(check({ dueDate: today })).toBeNull();
    expect(check({ rebate: { mode: 'FIXED', value: 9_999 } })).toBeNull();
  });

  it('refuses dates and day counts out of the rules', () => {
    expect(check({ dueDate: '2026-02-30' })).toBe('dueDate: must be a date YYYY-MM-DD');
    expect(check({ dueDate: '2026-01-09' })).toBe('dueDate: must be today or later (America/Sao_Paulo)');
    // ten years of days ahead at most: a date near 9999-12-31 would push E and L past the calendar's end
    expect(check({ dueDate: '2036-01-11' })).toBeNull(); // 3653 days (2028 and 2032 are leap years)
    expect(check({ dueDate: '2036-01-12' })).toBe('dueDate: must be at most 3653 days from today');
    expect(check({ dueDate: '9999-12-31' })).toBe('dueDate: must be at most 3653 days from today');
    expect(check({ daysAfterDue: 366 })).toBe('daysAfterDue: must be an integer from 0 to 365');
    expect(check({ daysAfterDue: -1 })).toBe('daysAfterDue: must be an integer from 0 to 365');
  });

  it('refuses any value ≤ 0', () => {
    expect(check({ rebate: { mode: 'FIXED', value: 0 } })).toBe('rebate.value: must be greater than 0');
    expect(check({ fine: { mode: 'PERCENT', value: -1 } })).toBe('fine.value: must be greater than 0');
    expect(check({ interest: { mode: 'PERCENT_PER_DAY', value: 0 } })).toBe('interest.value: must be greater than 0');
    expect(check({ discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 0 } })).toBe('discount.value: must be greater than 0');
    expect(check({ discount: { mode: 'FIXED_UNTIL', tiers: [{ date: '2026-03-01', value: 0 }] } })).toBe(
      'discount.tiers[0].value: must be greater than 0',
    );
  });

  it('refuses tiers after dueDate, on the same date, or more than three', () => {
    const tiers = (...dates: string[]) => ({ discount: { mode: 'FIXED_UNTIL', tiers: dates.map((date) => ({ date, value: 100 })) } as Discount });
    expect(check(tiers('2026-03-01', '2026-03-11'))).toBe('discount.tiers[1].date: must be on or before dueDate');
    expect(check(tiers('2026-03-01', '2026-03-01'))).toBe("discount.tiers[1].date: must differ from the other tiers' dates");
    expect(check(tiers('2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04'))).toBe('discount.tiers: must have 1 to 3 tiers');
    expect(check(tiers())).toBe('discount.tiers: must have 1 to 3 tiers');
    // A Saturday due date's tier may be dated that Saturday (it counts as the Monday after).
    expect(check({ ...tiers('2026-03-07'), dueDate: '2026-03-07' })).toBeNull();
  });

  it('refuses a rebate that reaches the amount', () => {
    expect(check({ rebate: { mode: 'FIXED', value: 10_000 } })).toBe('rebate: reaches the amount');
    expect(check({ rebate: { mode: 'PERCENT', value: 10_000 } })).toBe('rebate: reaches the amount');
    expect(check({ rebate: { mode: 'PERCENT', value: 9_999 } })).toBeNull();
  });

  it('refuses rebate plus the largest discount from today to E reaching the amount', () => {
    const rebate: Rebate = { mode: 'FIXED', value: 1_000 };
    const tiers: Discount = { mode: 'FIXED_UNTIL', tiers: [{ date: '2026-03-01', value: 9_000 }, { date: '2026-03-10', value: 100 }] };
    expect(check({ rebate, discount: tiers })).toBe('discount: rebate and discount reach the amount');
    // From 03-02 on the R$ 90,00 tier can no longer apply: only R$ 1,00 is left.
    expect(check({ rebate, discount: tiers }, '2026-03-02')).toBeNull();
    expect(check({ rebate, discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: '2026-03-10', value: 9_000 }] } })).toBe(
      'discount: rebate and discount reach the amount',
    );
    expect(check({ rebate, discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: '2026-03-10', value: 8_999 }] } })).toBeNull();
  });

  it('weighs a per-day discount on today, counted to E', () => {
    // R$ 1,00 a day early; due Sat 2026-03-07 → E = Mon 03-09. From 01-08 that is 60 days: 6000 + 4000 rebate.
    const terms = { dueDate: '2026-03-07', rebate: { mode: 'FIXED', value: 4_000 } as Rebate, discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 100 } as Discount };
    expect(check(terms, '2026-01-08')).toBe('discount: rebate and discount reach the amount');
    expect(check(terms, '2026-01-09')).toBeNull(); // 59 days: 5900 + 4000 = 9900
    // 0.5 % a day: 60 days × 50 = 3000 + 4000 < 10000, 120 days would reach it
    const percent = { ...terms, discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 50 } as Discount };
    expect(check(percent, '2026-01-08')).toBeNull();
    expect(check({ ...percent, dueDate: '2026-05-08' }, '2026-01-08')).toBe('discount: rebate and discount reach the amount');
  });

  it('refuses rules whose amount due on the last day would not fit BACEN’s money text', () => {
    expect(check({ fine: { mode: 'FIXED', value: MAX_BACEN_CENTS } })).toBe(
      `fine: makes the amount due on the last day to pay exceed ${MAX_BACEN_CENTS}`,
    );
    expect(check({ amount: 100_000_000, daysAfterDue: 365, interest: { mode: 'PERCENT_PER_DAY', value: 999_999_999_999 } })).toBe(
      `interest: makes the amount due on the last day to pay exceed ${MAX_BACEN_CENTS}`,
    );
    expect(check({ fine: { mode: 'FIXED', value: MAX_BACEN_CENTS - 10_000 } })).toBeNull();
  });
});

// ---- properties ------------------------------------------------------------------------------------

const day = (from: string, to: string) =>
  fc.integer({ min: toDayNumber(from), max: toDayNumber(to) }).map(fromDayNumber);
const rebateArb: fc.Arbitrary<Rebate> = fc.record({ mode: fc.constantFrom('FIXED', 'PERCENT'), value: fc.integer({ min: 1, max: 20_000 }) });
const fineArb: fc.Arbitrary<Fine> = fc.record({ mode: fc.constantFrom('FIXED', 'PERCENT'), value: fc.integer({ min: 1, max: 1_000_000 }) });
const interestArb: fc.Arbitrary<Interest> = fc.record({
  mode: fc.constantFrom('AMOUNT_PER_DAY', 'PERCENT_PER_DAY', 'PERCENT_PER_MONTH', 'PERCENT_PER_YEAR'),
  value: fc.integer({ min: 1, max: 100_000 }),
});

/** Terms around a due date in 2026–2032, with up to three tiers in the 40 days before it. */
const termsArb: fc.Arbitrary<DueDateTerms> = fc
  .record({
    amount: fc.integer({ min: 100, max: 100_000_000 }),
    dueDate: day('2026-01-01', '2032-12-31'),
    daysAfterDue: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 365 })),
    rebate: fc.option(rebateArb, { nil: undefined }),
    fine: fc.option(fineArb, { nil: undefined }),
    interest: fc.option(interestArb, { nil: undefined }),
    early: fc.option(fc.record({ mode: fc.constantFrom('AMOUNT_PER_DAY_EARLY', 'PERCENT_PER_DAY_EARLY'), value: fc.integer({ min: 1, max: 5_000 }) }), { nil: undefined }),
    tiered: fc.option(
      fc.record({
        mode: fc.constantFrom('FIXED_UNTIL', 'PERCENT_UNTIL'),
        tiers: fc.uniqueArray(fc.record({ back: fc.integer({ min: 0, max: 40 }), value: fc.integer({ min: 1, max: 20_000 }) }), {
          minLength: 1,
          maxLength: 3,
          selector: (t) => t.back,
        }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ early, tiered, ...t }) => {
    const discount: Discount | undefined = tiered
      ? { mode: tiered.mode, tiers: tiered.tiers.map(({ back, value }) => ({ date: addDays(t.dueDate, -back), value })) }
      : early;
    return { ...t, discount };
  });

describe('properties', () => {
  it('matches the naive day-by-day implementation on every day around the due date', () => {
    fc.assert(
      fc.property(termsArb, fc.integer({ min: -60, max: 400 }), (terms, offset) => {
        const d = addDays(terms.dueDate, offset);
        expect(amountDue(terms, d)).toEqual(naiveAmountDue(terms, d));
      }),
      { numRuns: 1500 },
    );
  });

  it('the creation check refuses rebate and discount exactly when some payable day from today would owe nothing', () => {
    fc.assert(
      fc.property(termsArb, fc.integer({ min: 0, max: 90 }), (terms, back) => {
        const today = addDays(terms.dueDate, -back);
        const problem = checkDueDateTerms(terms, today);
        if (problem && problem.field !== 'rebate' && problem.field !== 'discount') return; // the other checks
        let least = Infinity;
        const e = effectiveDueDate(terms.dueDate);
        for (let d = today; d <= e; d = addDays(d, 1)) least = Math.min(least, amountDue(terms, d)!.amountDue);
        expect(problem !== null).toBe(least <= 0);
      }),
      { numRuns: 1500 },
    );
  });

  it('after E the amount due never decreases', () => {
    fc.assert(
      fc.property(termsArb, (terms) => {
        let previous = -Infinity;
        const l = lastDayToPay(terms);
        for (let d = addDays(effectiveDueDate(terms.dueDate), 1); d <= l; d = addDays(d, 1)) {
          const due = amountDue(terms, d)!.amountDue;
          expect(due).toBeGreaterThanOrEqual(previous);
          previous = due;
        }
      }),
      { numRuns: 200 },
    );
  });
});
