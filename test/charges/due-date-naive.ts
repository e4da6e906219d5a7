import type { AmountDue, DueDateTerms } from '../../src/charges/due-date.rules.js';

// A second, deliberately naive reading of the due-date rules (docs/due-date-charges.md), sharing no code
// with src/: dates are [year, month, day] stepped one day at a time, the weekday is Zeller's congruence,
// Easter is Gauss's algorithm, day counts are loops, and "V × value × n" is a sum repeated n times.

type Ymd = [number, number, number];

const parse = (s: string): Ymd => [Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10))];
const show = ([y, m, d]: Ymd) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const monthLength = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

function next([y, m, d]: Ymd): Ymd {
  if (d < monthLength(y, m)) return [y, m, d + 1];
  return m < 12 ? [y, m + 1, 1] : [y + 1, 1, 1];
}

function previous([y, m, d]: Ymd): Ymd {
  if (d > 1) return [y, m, d - 1];
  return m > 1 ? [y, m - 1, monthLength(y, m - 1)] : [y - 1, 12, 31];
}

const step = (date: Ymd, days: number): Ymd => {
  let out = date;
  for (let i = 0; i < Math.abs(days); i++) out = days > 0 ? next(out) : previous(out);
  return out;
};

/** Calendar days from a to b (a ≤ b), counted one by one. */
function count(a: string, b: string): number {
  let n = 0;
  for (let d = parse(a); show(d) !== b; d = next(d)) n++;
  return n;
}

/** Zeller: 0 = Saturday, 1 = Sunday, … 6 = Friday. */
function zeller([y, m, d]: Ymd): number {
  const [yy, mm] = m < 3 ? [y - 1, m + 12] : [y, m];
  const k = yy % 100;
  const j = Math.floor(yy / 100);
  return (d + Math.floor((13 * (mm + 1)) / 5) + k + Math.floor(k / 4) + Math.floor(j / 4) + 5 * j) % 7;
}

/** Gauss's Easter algorithm with its two exceptions. */
function gaussEaster(y: number): Ymd {
  const a = y % 19;
  const b = y % 4;
  const c = y % 7;
  const k = Math.floor(y / 100);
  const p = Math.floor((13 + 8 * k) / 25);
  const q = Math.floor(k / 4);
  const M = (15 - p + k - q) % 30;
  const N = (4 + k - q) % 7;
  const d = (19 * a + M) % 30;
  const e = (2 * b + 4 * c + 6 * d + N) % 7;
  if (d === 29 && e === 6) return [y, 4, 19];
  if (d === 28 && e === 6 && (11 * M + 11) % 30 < 19) return [y, 4, 18];
  return 22 + d + e <= 31 ? [y, 3, 22 + d + e] : [y, 4, d + e - 9];
}

function holiday(date: Ymd): boolean {
  const [y, m, d] = date;
  const fixed = ['1-1', '4-21', '5-1', '9-7', '10-12', '11-2', '11-15', '11-20', '12-25'];
  if (fixed.includes(`${m}-${d}`)) return true;
  const easter = gaussEaster(y);
  return [-48, -47, -2, 60].some((offset) => show(step(easter, offset)) === show(date));
}

const business = (date: Ymd) => zeller(date) !== 0 && zeller(date) !== 1 && !holiday(date);

function rollForward(date: Ymd): Ymd {
  let d = date;
  while (!business(d)) d = next(d);
  return d;
}

/** V × value × n / divisor, floored: the product as n repeated additions. */
function repeated(v: number, value: number, n: number, divisor: number): number {
  let sum = 0n;
  for (let i = 0; i < n; i++) sum += BigInt(v) * BigInt(value);
  return Number(sum / BigInt(divisor));
}

export function naiveAmountDue(t: DueDateTerms, day: string): AmountDue | null {
  const E = show(rollForward(parse(t.dueDate)));
  const L = show(rollForward(step(parse(E), t.daysAfterDue)));
  if (day > L) return null;
  const V = t.amount;

  let rebate = 0;
  if (t.rebate) rebate = t.rebate.mode === 'FIXED' ? t.rebate.value : repeated(V, t.rebate.value, 1, 10_000);

  let discount = 0;
  const rule = t.discount;
  if (rule && day <= E) {
    if ('tiers' in rule) {
      const dated = rule.tiers
        .map((tier) => ({ ...tier, date: tier.date === t.dueDate ? E : tier.date }))
        .sort((a, b) => (a.date < b.date ? -1 : 1));
      const tier = dated.find((x) => x.date >= day);
      if (tier) discount = rule.mode === 'FIXED_UNTIL' ? tier.value : repeated(V, tier.value, 1, 10_000);
    } else {
      const early = count(day, E);
      discount = rule.mode === 'AMOUNT_PER_DAY_EARLY' ? rule.value * early : repeated(V, rule.value, early, 10_000);
    }
  }

  let fine = 0;
  let interest = 0;
  if (day > E) {
    const late = count(E, day);
    if (t.fine) fine = t.fine.mode === 'FIXED' ? t.fine.value : repeated(V, t.fine.value, 1, 10_000);
    if (t.interest) {
      const { mode, value } = t.interest;
      if (mode === 'AMOUNT_PER_DAY') interest = value * late;
      else interest = repeated(V, value, late, { PERCENT_PER_DAY: 10_000, PERCENT_PER_MONTH: 300_000, PERCENT_PER_YEAR: 3_650_000 }[mode]);
    }
  }
  return {
    amountDue: V - rebate - discount + fine + interest,
    breakdown: { original: V, rebate, discount, fine, interest },
  };
}
