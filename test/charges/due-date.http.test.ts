// docs/contract/due-date-charges.md over HTTP against PostgreSQL, through the simulator: creating, every mode
// on the day before, on and after the due date, a due date on a Saturday and on Carnival, the last day to pay
// and the day after, the money (the amount paid, its fee, the credit, the refund), events and expiry.
// Every expected amount is worked out by hand in the comments (V = R$ 1.000,00 unless said).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, daysBetween } from '../../src/calendar/index.js';
import { enqueue } from '../../src/platform/jobs.js';
import { parseBrCode } from '../../src/pix/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import {
  dueCharge, endOfDay, nextCarnivalMonday, nextWeekday, parts, payer, payOn, plainSaturday, plainWednesday, recentBusinessDay, today,
} from './due-date-support.js';
import { balance, check, createCharge, events, expectError, validTaxId, type Merchant } from './support.js';

let t: TestContext;
let m: Merchant;
let cust: string;
/** The due date of most tests: a Wednesday with no holiday around it, so E = D0. */
let D0: string;
beforeAll(async () => {
  t = await createTestContext({ SIM_REFUND_DELAY_MS: '3600000' });
  m = await t.merchant();
  cust = await payer(t, m);
  D0 = plainWednesday();
});
afterAll(async () => { await t?.close(); });

/** fee = 30 + ⌊paid × 199 / 10000⌋ (the fee merchant's terms), on what was paid. */
const fee = (paid: number) => 30 + Math.floor((paid * 199) / 10_000);

describe('creating a due-date charge', () => {
  it('stores the terms as given, a 32-character txid, expiresAt at the end of the last day to pay, and shows the amount due today', async () => {
    const discount = { mode: 'FIXED_UNTIL', tiers: [{ date: addDays(D0, -5), value: 5000 }, { date: D0, value: 2000 }] };
    const c = await dueCharge(t, m, cust, {
      dueDate: D0, description: 'Mensalidade', rebate: { mode: 'FIXED', value: 1000 }, discount,
      fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 },
    });
    // daysAfterDue defaults to 30: L = D0 + 30 (a Friday), moved on if a weekend or holiday.
    expect(c).toMatchObject({
      status: 'PENDING', amount: 100_000, dueDate: D0, daysAfterDue: 30, rebate: { mode: 'FIXED', value: 1000 }, discount,
      fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 }, paidAmount: null, paidBreakdown: null,
      fee: null, netAmount: null, paidAt: null,
    });
    expect(c.txid).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(c.amountDue).toBeUndefined(); // check-shaped answers only
    // Today is at least 10 days before D0 − 5: the R$ 50,00 tier applies; 1000 + 5000 off → R$ 940,00.
    const checked = await check(t, m, c.id);
    expect(checked).toMatchObject({ amountDue: 94_000, breakdown: parts({ rebate: 1000, discount: 5000 }) });
    const created = await events(t, m.id, 'CHARGE_CREATED');
    expect(created.at(-1)!.data).toMatchObject({ id: c.id, dueDate: D0, amountDue: 94_000 });
    const { rows: [row] } = await t.pool.query('SELECT expires_at FROM charges WHERE id = $1', [c.id]);
    expect(c.expiresAt).toBe(row.expires_at.toISOString());
  });

  it('the BR Code is dynamic: 26-25 is Pixgate\'s own location, 62-05 ***, no amount', async () => {
    const c = await dueCharge(t, m, cust, { dueDate: D0 });
    const fields = new Map(parseBrCode(c.brCode).fields.map((f) => [f.id, f.value]));
    expect(fields.get('01')).toBe('12');
    expect(fields.has('54')).toBe(false);
    expect(fields.get('26')).toMatch(/^0014br\.gov\.bcb\.pix25\d\d127\.0\.0\.1:3000\/pix\/v2\/cobv\/[A-Za-z0-9]{32}$/);
    expect(fields.get('62')).toBe('0503***');
  });

  it('the last day to pay moves to the next business day: expiresAt is the end of it in São Paulo', async () => {
    // A Wednesday due date + 3 days = Saturday → L = Monday (D0 + 5).
    const c = await dueCharge(t, m, cust, { dueDate: D0, daysAfterDue: 3 });
    expect(c.expiresAt).toBe(endOfDay(addDays(D0, 5)));
    const zero = await dueCharge(t, m, cust, { dueDate: D0, daysAfterDue: 0 });
    expect(zero.expiresAt).toBe(endOfDay(D0));
  });

  it.each([
    [{ expiresIn: 3600 }, 'expiresIn: not allowed with dueDate (a due-date charge expires after its last day to pay)'],
    [{ split: [{ merchantId: 'mer_x', mode: 'FIXED', value: 100 }] }, 'split: not allowed with dueDate'],
    [{ dueDate: '2026-02-30' }, 'dueDate: must be a date YYYY-MM-DD'],
    [{ dueDate: '2020-01-02' }, 'dueDate: must be today or later (America/Sao_Paulo)'],
    [{ daysAfterDue: 366 }, 'daysAfterDue: must be <= 365'],
    [{ fine: { mode: 'FIXED', value: 0 } }, 'fine.value: must be greater than 0'],
    [{ interest: { mode: 'PERCENT_PER_DAY', value: -1 } }, 'interest.value: must be greater than 0'],
    [{ interest: { mode: 'DAILY', value: 1 } }, 'interest.mode: must be one of AMOUNT_PER_DAY, PERCENT_PER_DAY, PERCENT_PER_MONTH, PERCENT_PER_YEAR'],
    [{ rebate: { mode: 'FIXED', value: 100_000 } }, 'rebate: reaches the amount'],
    [{ discount: { mode: 'FIXED_UNTIL', tiers: [] } }, 'discount.tiers: must have 1 to 3 tiers'],
    [{ discount: { mode: 'FIXED_UNTIL' } }, 'discount.tiers: required with FIXED_UNTIL'],
    [{ discount: { mode: 'FIXED_UNTIL', value: 10, tiers: [{ date: '2099-01-01', value: 1 }] } }, 'discount.value: not allowed with FIXED_UNTIL (its values are in tiers)'],
    [{ discount: { mode: 'AMOUNT_PER_DAY_EARLY' } }, 'discount.value: required with AMOUNT_PER_DAY_EARLY'],
    [{ discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 1, tiers: [] } }, 'discount.tiers: not allowed with PERCENT_PER_DAY_EARLY'],
  ])('refuses %j: %s', async (extra, message) => {
    const res = await t.request('POST', '/transparents/create', {
      key: m.key, body: { method: 'PIX', amount: 100_000, customerId: cust, dueDate: D0, ...extra },
    });
    expectError(res, 400, 'VALIDATION_ERROR', message);
  });

  it('refuses tiers dated after the due date, twice on one date, or valued 0', async () => {
    const tiers = (list: Array<[string, number]>) => ({ mode: 'PERCENT_UNTIL', tiers: list.map(([date, value]) => ({ date, value })) });
    const send = (discount: unknown) => t.request('POST', '/transparents/create', {
      key: m.key, body: { method: 'PIX', amount: 100_000, customerId: cust, dueDate: D0, discount },
    });
    expectError(await send(tiers([[addDays(D0, 1), 100]])), 400, 'VALIDATION_ERROR', 'discount.tiers[0].date: must be on or before dueDate');
    expectError(await send(tiers([[D0, 100], [D0, 200]])), 400, 'VALIDATION_ERROR', "discount.tiers[1].date: must differ from the other tiers' dates");
    expectError(await send(tiers([[D0, 0]])), 400, 'VALIDATION_ERROR', 'discount.tiers[0].value: must be greater than 0');
    expectError(await send(tiers([[D0, 1], [addDays(D0, -1), 1], [addDays(D0, -2), 1], [addDays(D0, -3), 1]])), 400, 'VALIDATION_ERROR',
      'discount.tiers: must have 1 to 3 tiers');
  });

  it('refuses a rebate and a discount that could reach the amount from today on, and accepts one a cent short', async () => {
    // R$ 1,00 a day early: today is n = D0 − today days before E, the largest discount n × 100.
    const n = daysBetween(today(), D0);
    const body = (rebate: number) => ({
      method: 'PIX', amount: 100_000, customerId: cust, dueDate: D0,
      rebate: { mode: 'FIXED', value: rebate }, discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 100 },
    });
    expectError(await t.request('POST', '/transparents/create', { key: m.key, body: body(100_000 - n * 100) }), 400, 'VALIDATION_ERROR',
      'discount: rebate and discount reach the amount');
    const ok = await t.request('POST', '/transparents/create', { key: m.key, body: body(100_000 - n * 100 - 1) });
    expect(ok.status).toBe(201);
    expect((await check(t, m, ok.body.data.id)).amountDue).toBe(1);
  });

  it('needs a customer with a name and a tax id; the fields need dueDate; the fee must fit the smallest payment', async () => {
    const send = (body: Record<string, unknown>, key = m.key) => t.request('POST', '/transparents/create', { key, body: { method: 'PIX', amount: 100_000, ...body } });
    expectError(await send({ dueDate: D0 }), 400, 'VALIDATION_ERROR', 'customerId: required with dueDate (the payer BACEN requires)');
    const nameless = (await t.request('POST', '/customers', { key: m.key, body: { email: 'nameless@example.com', taxId: validTaxId() } })).body.data.id;
    expectError(await send({ dueDate: D0, customerId: nameless }), 400, 'VALIDATION_ERROR', 'customerId: the customer needs a name and a taxId for a due-date charge');
    expectError(await send({ dueDate: D0, customerId: 'cust_unknown' }), 400, 'VALIDATION_ERROR', 'customerId: not found');
    expectError(await send({ fine: { mode: 'FIXED', value: 100 } }), 400, 'VALIDATION_ERROR', 'fine: only with dueDate');
    expectError(await send({ daysAfterDue: 3 }), 400, 'VALIDATION_ERROR', 'daysAfterDue: only with dueDate');
    // fee 500 + 0 bps: a rebate of R$ 999,00 leaves R$ 1,00 to pay, less than the fee.
    const costly = await t.merchant({ chargeFeeFixed: 500 });
    const costlyPayer = await payer(t, costly);
    expectError(await send({ dueDate: D0, customerId: costlyPayer, rebate: { mode: 'FIXED', value: 99_900 } }, costly.key), 400, 'VALIDATION_ERROR',
      'amount: must cover the fee (500) even on the smallest amount due (100)');
  });
});

/** Pays a new charge with `rules` on `day`; answers what the simulator's pay answered. */
async function paidOn(merchant: Merchant, customerId: string, rules: Record<string, unknown>, day: string) {
  const c = await dueCharge(t, merchant, customerId, { dueDate: D0, ...rules });
  const res = await payOn(t, c.id, day);
  expect(res.status, res.raw).toBe(200);
  return res.body.data;
}

describe('the amount of a payment, each mode, the day before, on and after the due date', () => {
  // [rules, [rebate, discount, fine, interest] on D0 − 1, on D0, on D0 + 1]
  const cases: Array<[string, Record<string, unknown>, [number[], number[], number[]]]> = [
    ['rebate FIXED R$ 10,00', { rebate: { mode: 'FIXED', value: 1000 } }, [[1000, 0, 0, 0], [1000, 0, 0, 0], [1000, 0, 0, 0]]],
    // ⌊100000 × 150 / 10000⌋ = 1500, whatever the day
    ['rebate PERCENT 1.5 %', { rebate: { mode: 'PERCENT', value: 150 } }, [[1500, 0, 0, 0], [1500, 0, 0, 0], [1500, 0, 0, 0]]],
    // the tier with the earliest date ≥ D: D0 − 1 and D0 → the D0 tier (R$ 20,00); after E none
    ['discount FIXED_UNTIL', { discount: { mode: 'FIXED_UNTIL', tiers: [{ date: '@-5', value: 5000 }, { date: '@0', value: 2000 }] } },
      [[0, 2000, 0, 0], [0, 2000, 0, 0], [0, 0, 0, 0]]],
    // 3 % until D0 − 1: ⌊100000 × 300 / 10000⌋ = 3000 on D0 − 1, nothing on D0 (the tier's date has passed)
    ['discount PERCENT_UNTIL', { discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: '@-1', value: 300 }] } }, [[0, 3000, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]],
    // R$ 0,50 × (E − D) days: 1 day on D0 − 1, 0 on D0
    ['discount AMOUNT_PER_DAY_EARLY', { discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 50 } }, [[0, 50, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]],
    // ⌊100000 × 7 × 1 / 10000⌋ = 70
    ['discount PERCENT_PER_DAY_EARLY', { discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 7 } }, [[0, 70, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]],
    ['fine FIXED R$ 5,00', { fine: { mode: 'FIXED', value: 500 } }, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 500, 0]]],
    // ⌊100000 × 200 / 10000⌋ = 2000
    ['fine PERCENT 2 %', { fine: { mode: 'PERCENT', value: 200 } }, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2000, 0]]],
    ['interest AMOUNT_PER_DAY R$ 0,10', { interest: { mode: 'AMOUNT_PER_DAY', value: 10 } }, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 10]]],
    // ⌊100000 × 33 × 1 / 10000⌋ = 330
    ['interest PERCENT_PER_DAY 0.33 %', { interest: { mode: 'PERCENT_PER_DAY', value: 33 } }, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 330]]],
    // ⌊100000 × 100 × 1 / 300000⌋ = ⌊33.3⌋ = 33
    ['interest PERCENT_PER_MONTH 1 %', { interest: { mode: 'PERCENT_PER_MONTH', value: 100 } }, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 33]]],
    // ⌊100000 × 1200 × 1 / 3650000⌋ = ⌊32.88⌋ = 32
    ['interest PERCENT_PER_YEAR 12 %', { interest: { mode: 'PERCENT_PER_YEAR', value: 1200 } }, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 32]]],
  ];
  /** Tier dates are written relative to D0 (`@-5`), which is known only once the tests run. */
  const dated = (rules: Record<string, unknown>): Record<string, unknown> =>
    JSON.parse(JSON.stringify(rules), (_k, v) => (typeof v === 'string' && v.startsWith('@') ? addDays(D0, Number(v.slice(1))) : v));

  it.each(cases)('%s', async (_name, rules, expected) => {
    const merchant = await t.merchant({ chargeFeeFixed: 30, chargeFeeBps: 199 });
    const customerId = await payer(t, merchant);
    let credited = 0;
    for (const [i, offset] of [-1, 0, 1].entries()) {
      const [rebate, discount, fine, interest] = expected[i]!;
      const amount = 100_000 - rebate! - discount! + fine! + interest!;
      const paid = await paidOn(merchant, customerId, dated(rules), addDays(D0, offset));
      expect(paid, `D0 ${offset}`).toMatchObject({
        status: 'PAID', amount: 100_000, paidAmount: amount, paidBreakdown: parts({ rebate, discount, fine, interest }),
        fee: fee(amount), netAmount: amount - fee(amount), amountDue: null, breakdown: null,
      });
      // The payment is dated the day it was made on (São Paulo, UTC−3).
      expect(paid.paidAt.slice(0, 10) === addDays(D0, offset) || paid.paidAt.slice(0, 10) === addDays(D0, offset + 1)).toBe(true);
      credited += amount - fee(amount);
    }
    expect(await balance(t, merchant)).toEqual({ available: credited, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('interest counts calendar days from E: three days late', async () => {
    // n = 3: ⌊100000 × 100 × 3 / 300000⌋ = 100; ⌊100000 × 1200 × 3 / 3650000⌋ = ⌊98.6⌋ = 98; 3 × 330 = 990
    const day = addDays(D0, 3);
    expect((await paidOn(m, cust, { interest: { mode: 'PERCENT_PER_MONTH', value: 100 } }, day)).paidAmount).toBe(100_100);
    expect((await paidOn(m, cust, { interest: { mode: 'PERCENT_PER_YEAR', value: 1200 } }, day)).paidAmount).toBe(100_098);
    expect((await paidOn(m, cust, { interest: { mode: 'PERCENT_PER_DAY', value: 33 }, fine: { mode: 'FIXED', value: 200 } }, day)).paidBreakdown)
      .toEqual(parts({ fine: 200, interest: 990 }));
  });

  it('the earlier tier applies on its date; per-day discounts grow with the days early', async () => {
    // D0 − 5: the R$ 50,00 tier; R$ 0,50 × 5 = R$ 2,50; ⌊100000 × 7 × 5 / 10000⌋ = 350
    const day = addDays(D0, -5);
    const tiers = { mode: 'FIXED_UNTIL', tiers: [{ date: addDays(D0, -5), value: 5000 }, { date: D0, value: 2000 }] };
    expect((await paidOn(m, cust, { discount: tiers }, day)).paidAmount).toBe(95_000);
    expect((await paidOn(m, cust, { discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 50 } }, day)).paidAmount).toBe(99_750);
    expect((await paidOn(m, cust, { discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 7 } }, day)).paidAmount).toBe(99_650);
  });

  it('all four rules together (the worked example of docs/due-date-charges.md, from D0)', async () => {
    const rules = {
      rebate: { mode: 'FIXED', value: 1000 }, fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 },
      discount: { mode: 'FIXED_UNTIL', tiers: [{ date: addDays(D0, -9), value: 5000 }, { date: D0, value: 2000 }] },
    };
    // D0 − 1: 100000 − 1000 − 2000 = 97000; D0 + 1: 100000 − 1000 + 2000 + 33 = 101033
    expect((await paidOn(m, cust, rules, addDays(D0, -1))).paidAmount).toBe(97_000);
    expect((await paidOn(m, cust, rules, addDays(D0, 1))).paidBreakdown).toEqual(parts({ rebate: 1000, fine: 2000, interest: 33 }));
    await t.assertLedger();
  });
});

describe('due dates that are not business days', () => {
  it('a due date on a Saturday is extended to Monday: discount and no fine on Monday, fine and one day of interest on Tuesday', async () => {
    const sat = plainSaturday();
    const rules = {
      dueDate: sat, fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_DAY', value: 33 },
      // a tier dated the due date counts as dated E (Monday)
      discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: sat, value: 200 }] },
    };
    const monday = addDays(sat, 2);
    const mon = await payOn(t, (await dueCharge(t, m, cust, rules)).id, monday);
    expect(mon.body.data).toMatchObject({ paidAmount: 98_000, paidBreakdown: parts({ discount: 2000 }) });
    const sun = await payOn(t, (await dueCharge(t, m, cust, rules)).id, addDays(sat, 1));
    expect(sun.body.data.paidAmount).toBe(98_000);
    // Tuesday: n = 1 from Monday, not 3 from Saturday
    const tue = await payOn(t, (await dueCharge(t, m, cust, rules)).id, addDays(sat, 3));
    expect(tue.body.data).toMatchObject({ paidAmount: 102_330, paidBreakdown: parts({ fine: 2000, interest: 330 }) });
    // E + 30 days = a Wednesday; L is then that day (no weekend to skip), unless a holiday moves it
    const c = await dueCharge(t, m, cust, { dueDate: sat, daysAfterDue: 5 });
    // Monday + 5 = Saturday → L = the Monday after
    expect(c.expiresAt).toBe(endOfDay(addDays(monday, 7)));
  });

  it('a due date on Carnival Monday is extended to Ash Wednesday', async () => {
    const carnival = nextCarnivalMonday();
    const wednesday = addDays(carnival, 2);
    const rules = { dueDate: carnival, daysAfterDue: 0, fine: { mode: 'FIXED', value: 500 }, discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 100 } };
    // Carnival Monday itself: 2 days before E → R$ 2,00 off
    expect((await payOn(t, (await dueCharge(t, m, cust, rules)).id, carnival)).body.data.paidAmount).toBe(99_800);
    // Carnival Tuesday: 1 day before E; Ash Wednesday: E itself, no fine
    expect((await payOn(t, (await dueCharge(t, m, cust, rules)).id, addDays(carnival, 1))).body.data.paidAmount).toBe(99_900);
    expect((await payOn(t, (await dueCharge(t, m, cust, rules)).id, wednesday)).body.data.paidAmount).toBe(100_000);
    // daysAfterDue 0: L = E; the charge lasts to the end of Ash Wednesday, Thursday is refused
    const c = await dueCharge(t, m, cust, rules);
    expect(c.expiresAt).toBe(endOfDay(wednesday));
    expectError(await payOn(t, c.id, addDays(carnival, 3)), 400, 'INVALID_STATE', `Charge cannot be paid on ${addDays(carnival, 3)}: its last day to pay is ${wednesday}`);
  });
});

describe('the last day to pay', () => {
  it('pays on L (moved past a weekend) and refuses the day after', async () => {
    // D0 (Wed) + 3 = Saturday → L = Monday D0 + 5; interest counts 5 days: 5 × R$ 0,10
    const rules = { daysAfterDue: 3, interest: { mode: 'AMOUNT_PER_DAY', value: 10 } };
    const L = addDays(D0, 5);
    const onL = await payOn(t, (await dueCharge(t, m, cust, { dueDate: D0, ...rules })).id, L);
    expect(onL.body.data).toMatchObject({ status: 'PAID', paidAmount: 100_050, paidBreakdown: parts({ interest: 50 }) });
    // Saturday itself is still payable (within L)
    expect((await payOn(t, (await dueCharge(t, m, cust, { dueDate: D0, ...rules })).id, addDays(D0, 3))).body.data.paidAmount).toBe(100_030);
    const late = await dueCharge(t, m, cust, { dueDate: D0, ...rules });
    expectError(await payOn(t, late.id, addDays(L, 1)), 400, 'INVALID_STATE', `Charge cannot be paid on ${addDays(L, 1)}: its last day to pay is ${L}`);
    expect((await check(t, m, late.id)).status).toBe('PENDING');
  });

  it('is EXPIRED after the end of L: CHARGE_EXPIRED, no amount due, and the simulator refuses it', async () => {
    const c = await dueCharge(t, m, cust, { dueDate: D0, daysAfterDue: 0 });
    // Time passes: move the charge back so that its expiresAt is behind us, then let the expiry job run.
    await t.pool.query(
      `UPDATE charges SET created_at = created_at - interval '60 days', expires_at = now() - interval '1 second',
         due_date = due_date - 60 WHERE id = $1`, [c.id]);
    expect(await check(t, m, c.id)).toMatchObject({ status: 'EXPIRED', amountDue: null, breakdown: null });
    await enqueue(t.pool, 'charges.expire', { chargeId: c.id }, { jobKey: `charge-expire:${c.id}` });
    const expired = async () => (await events(t, m.id, 'CHARGE_EXPIRED')).filter((e) => e.data.id === c.id);
    for (let i = 0; i < 100 && (await expired()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await expired())[0]!.data).toMatchObject({ id: c.id, status: 'EXPIRED', dueDate: addDays(D0, -60) });
    // Its payer's bank refuses an expired code, whatever the day asked for
    expectError(await payOn(t, c.id), 400, 'INVALID_STATE', 'Charge is EXPIRED; only a PENDING charge can be paid');
    expectError(await payOn(t, c.id, addDays(D0, -60)), 400, 'INVALID_STATE', 'Charge is EXPIRED; only a PENDING charge can be paid');
  });

  it('check shows the amount due today after the due date: fine and interest from E', async () => {
    const c = await dueCharge(t, m, cust, { dueDate: D0, fine: { mode: 'FIXED', value: 700 }, interest: { mode: 'AMOUNT_PER_DAY', value: 10 } });
    // As if created 20 days ago with a business day of last week as its due date (E = that day).
    const due = recentBusinessDay();
    await t.pool.query(`UPDATE charges SET created_at = created_at - interval '20 days', due_date = $2::date WHERE id = $1`, [c.id, due]);
    const n = daysBetween(due, today());
    expect(await check(t, m, c.id)).toMatchObject({ amountDue: 100_000 + 700 + n * 10, breakdown: parts({ fine: 700, interest: n * 10 }) });
  });
});

describe('the money of a payment', () => {
  it('credits what was paid less the fee on it; a refund returns all of it; CHARGE_PAID carries paidAmount and paidBreakdown', async () => {
    const merchant = await t.merchant({ chargeFeeFixed: 30, chargeFeeBps: 199 });
    const customerId = await payer(t, merchant);
    const c = await dueCharge(t, merchant, customerId, { dueDate: D0, fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_DAY', value: 33 } });
    // two days late: 100000 + 2000 + 660 = 102660; fee 30 + ⌊102660 × 0.0199⌋ = 30 + 2042 = 2072
    const paid = (await payOn(t, c.id, addDays(D0, 2))).body.data;
    expect(paid).toMatchObject({ paidAmount: 102_660, fee: 2072, netAmount: 100_588 });
    expect(await balance(t, merchant)).toEqual({ available: 100_588, pending: 0, blocked: 0 });
    const [event] = (await events(t, merchant.id, 'CHARGE_PAID')).filter((e) => e.data.id === c.id);
    const { imageBase64: _image, ...withoutImage } = paid;
    expect(event!.data).toEqual(withoutImage);
    expect(event!.data).toMatchObject({ dueDate: D0, daysAfterDue: 30, paidAmount: 102_660, paidBreakdown: parts({ fine: 2000, interest: 660 }) });
    // The refund returns the 102660 that arrived: the merchant's net plus the 2072 fee the platform keeps.
    expectError(await t.request('POST', `/transparents/refund?id=${c.id}`, { key: merchant.key }), 400, 'INSUFFICIENT_BALANCE');
    const other = await createCharge(t, merchant, { amount: 5000 });
    await payOn(t, other.id);
    const refunded = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: merchant.key });
    expect(refunded.status, refunded.raw).toBe(200);
    expect(refunded.body.data).toMatchObject({ status: 'REFUNDED', refund: { amount: 102_660, status: 'PENDING' } });
    // 100588 + (5000 − 30 − 99) − 102660 = 2799
    expect(await balance(t, merchant)).toEqual({ available: 2799, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('simulate-payment takes the same date; a date on an immediate charge or before creation is refused', async () => {
    const c = await dueCharge(t, m, cust, { dueDate: D0, rebate: { mode: 'FIXED', value: 1234 } });
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${c.id}`, { key: m.key, body: { date: addDays(today(), -1) } }),
      400, 'VALIDATION_ERROR', `date: must not be before the charge was created (${today()})`);
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${c.id}`, { key: m.key, body: { date: '2026-13-01' } }),
      400, 'VALIDATION_ERROR', 'date: must be a date YYYY-MM-DD');
    const res = await t.request('POST', `/transparents/simulate-payment?id=${c.id}`, { key: m.key, body: { date: D0 } });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'PAID', paidAmount: 98_766 });
    const immediate = await createCharge(t, m, { amount: 1000 });
    expectError(await payOn(t, immediate.id, D0), 400, 'VALIDATION_ERROR', 'date: only a due-date charge is paid on a chosen date');
    expectError(await t.request('POST', `/transparents/simulate-payment?id=${immediate.id}`, { key: m.key, body: { date: D0 } }),
      400, 'VALIDATION_ERROR', 'date: only a due-date charge is paid on a chosen date');
    // Without a date: today, as before.
    expect((await t.request('POST', `/transparents/simulate-payment?id=${immediate.id}`, { key: m.key })).body.data.status).toBe('PAID');
    // today's payment of a due-date charge: the amount due today
    const c2 = await dueCharge(t, m, cust, { dueDate: D0, discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 10 } });
    const dueToday = (await check(t, m, c2.id)).amountDue;
    expect(dueToday).toBe(100_000 - 10 * daysBetween(today(), D0));
    expect((await payOn(t, c2.id)).body.data.paidAmount).toBe(dueToday);
  });

  it('a due-date charge is listed with its terms; immediate charges show them null', async () => {
    const c = await dueCharge(t, m, cust, { dueDate: nextWeekday(D0, 1), rebate: { mode: 'PERCENT', value: 10 } });
    const listed = (await t.request('GET', `/transparents/list?id=${c.id}`, { key: m.key })).body.data[0];
    expect(listed).toMatchObject({ dueDate: nextWeekday(D0, 1), rebate: { mode: 'PERCENT', value: 10 }, fine: null });
    expect(listed.amountDue).toBeUndefined();
    const immediate = await check(t, m, (await createCharge(t, m, { amount: 1000 })).id);
    expect(immediate).toMatchObject({
      dueDate: null, daysAfterDue: null, fine: null, interest: null, discount: null, rebate: null, paidAmount: null, paidBreakdown: null, amountDue: null, breakdown: null,
    });
  });
});

describe('the rest of the charge machinery', () => {
  it('an Idempotency-Key replays the due-date charge; a PIX the simulated network receives for its txid is credited at its amount', async () => {
    const body = { method: 'PIX', amount: 100_000, customerId: cust, dueDate: D0, rebate: { mode: 'FIXED', value: 500 } };
    const headers = { 'idempotency-key': `due-${D0}-${Math.random()}` };
    const first = await t.request('POST', '/transparents/create', { key: m.key, body, headers });
    const again = await t.request('POST', '/transparents/create', { key: m.key, body, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.data.id).toBe(first.body.data.id);
    // R$ 995,00 today: the amount of today's rules, so its parts are today's
    const received = await t.admin('POST', '/admin/simulator/pix', { amount: 99_500, txid: first.body.data.txid });
    expect(received.body.data).toMatchObject({ result: 'CREDITED', charge: { id: first.body.data.id, paidAmount: 99_500, paidBreakdown: parts({ rebate: 500 }) } });
    await t.assertLedger();
  });
});
