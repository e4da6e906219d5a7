import { addDays, bankHolidays, saoPauloDate, weekday, type CivilDate } from '../../src/calendar/index.js';
import type { TestContext } from '../support/context.js';
import { createCharge, validTaxId, type Merchant } from './support.js';

// Dates and helpers of the due-date tests over HTTP. A due date must be today or later, so every date is
// chosen from today; the helpers only choose (a Wednesday, a Saturday, Carnival) — what the rules make of
// the chosen dates is written out by hand in the tests.

export const today = (): CivilDate => saoPauloDate(new Date());

const isHoliday = (d: CivilDate) => bankHolidays(Number(d.slice(0, 4))).includes(d);

/** The first date from `from` with weekday `day` (0 Sunday … 6 Saturday) for which `ok` holds. */
export function nextWeekday(from: CivilDate, day: number, ok: (d: CivilDate) => boolean = () => true): CivilDate {
  let d = from;
  while (weekday(d) !== day || !ok(d)) d = addDays(d, 1);
  return d;
}

/** A Wednesday at least 10 days ahead with no holiday from 7 days before it to 7 days after: E = the due date. */
export const plainWednesday = (): CivilDate =>
  nextWeekday(addDays(today(), 10), 3, (d) => Array.from({ length: 15 }, (_, i) => addDays(d, i - 7)).every((x) => !isHoliday(x)));

/** A Saturday at least 7 days ahead whose Monday and Tuesday are business days: E = Saturday + 2. */
export const plainSaturday = (): CivilDate => nextWeekday(addDays(today(), 7), 6, (d) => !isHoliday(addDays(d, 2)) && !isHoliday(addDays(d, 3)));

/** A weekday of last week (2 to 8 days ago) that is no holiday: a business day, so E = that day. */
export function recentBusinessDay(): CivilDate {
  for (let back = 2; ; back++) {
    const d = addDays(today(), -back);
    if (weekday(d) !== 0 && weekday(d) !== 6 && !isHoliday(d)) return d;
  }
}

/** Carnival Mondays (Easter − 48 days), from BCB's calendar of national holidays. */
const CARNIVAL_MONDAYS = ['2026-02-16', '2027-02-08', '2028-02-28', '2029-02-12', '2030-03-04', '2031-02-24', '2032-02-09', '2033-02-28', '2034-02-20', '2035-02-05'];
export const nextCarnivalMonday = (): CivilDate => CARNIVAL_MONDAYS.find((d) => d >= today())!;

/** `YYYY-MM-DD` + 1 day at 02:59:59.999Z: the last millisecond of a São Paulo day (UTC−3). */
export const endOfDay = (d: CivilDate) => `${addDays(d, 1)}T02:59:59.999Z`;

/** A customer with the name and tax id BACEN requires of a cobv's payer. */
export async function payer(t: TestContext, m: Merchant, name = 'Maria Pagadora'): Promise<string> {
  const res = await t.request('POST', '/customers', { key: m.key, body: { email: `payer-${validTaxId()}@example.com`, name, taxId: validTaxId() } });
  if (res.status !== 201) throw new Error(`customer: ${res.raw}`);
  return res.body.data.id;
}

/** A due-date charge of V = R$ 1.000,00 unless the body says otherwise. */
export async function dueCharge(t: TestContext, m: Merchant, customerId: string, body: Record<string, unknown>) {
  return createCharge(t, m, { amount: 100_000, customerId, ...body });
}

/** The simulator's payer pays on `date`; the answer as it came. */
export const payOn = (t: TestContext, chargeId: string, date?: string) =>
  t.admin('POST', `/admin/simulator/charges/${chargeId}/pay`, date === undefined ? undefined : { date });

/** The breakdown as the API shows it, from its parts (zeros left out). */
export const parts = (p: Partial<{ rebate: number; discount: number; fine: number; interest: number }>, original = 100_000) =>
  ({ original, rebate: 0, discount: 0, fine: 0, interest: 0, ...p });
