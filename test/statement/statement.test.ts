import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { balance, createCharge, expectError, pay, type Merchant } from '../charges/support.js';
import { withTransaction } from '../../src/platform/db.js';
import { lockBalance } from '../../src/ledger/ledger.js';
import { fund } from '../support/ledger.js';
import { allLines, chainProblems, expectStatementMatchesBalance, LINE_KEYS } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_REFUND_DELAY_MS: '600000', SIM_PAYOUT_DELAY_MS: '600000' }); });
afterAll(async () => { await t?.close(); });

const paid = async (m: Merchant, body: Record<string, unknown> = {}) => {
  const c = await createCharge(t, m, body);
  return pay(t, c.id);
};
const withdraw = async (m: Merchant, amount: number) => {
  const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount, pixKey: 'payout@example.com', pixKeyType: 'EMAIL' } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};
const sim = async (path: string, body?: unknown) => {
  const res = await t.admin('POST', `/admin/simulator/${path}`, body);
  expect(res.status, res.raw).toBe(200);
  return res.body.data;
};

describe('GET /me/statement: every line type, with its ids, fee and running balance', () => {
  it('tells the story of a merchant and of its split recipient, and each chain ends at the balance', async () => {
    const m = await t.merchant({ chargeFeeFixed: 100, withdrawalFeeFixed: 50 });
    const r = await t.merchant();
    const c1 = await paid(m, { amount: 10_000, split: [{ merchantId: r.id, mode: 'FIXED', value: 1_000 }] }); // m +8900, r +1000
    const c2 = await paid(m, { amount: 5_000 }); // +4900
    const refunded = (await t.request('POST', `/transparents/refund?id=${c2.id}`, { key: m.key })).body.data.refund; // −5000
    await sim(`refunds/${refunded.id}/fail`, { reason: 'payer account closed' }); // +5000
    const d1 = await sim(`charges/${c1.id}/dispute`); // available −8900 → blocked
    await sim(`disputes/${d1.id}/resolve`, { outcome: 'REJECTED' }); // back
    const w1 = await withdraw(m, 1_000); // −1050 → pending
    const w1done = await sim(`withdrawals/${w1}/complete`);
    const w2 = await withdraw(m, 500); // −550
    await sim(`withdrawals/${w2}/fail`, { reason: 'key not found' }); // +550
    const c3 = await paid(m, { amount: 2_000 }); // +1900
    const d2 = await sim(`charges/${c3.id}/dispute`); // −1900 → blocked
    await sim(`disputes/${d2.id}/resolve`, { outcome: 'ACCEPTED' }); // blocked → payer
    const disputeRefund = (await t.request('GET', `/transparents/check?id=${c3.id}`, { key: m.key })).body.data.refund;

    const { available, pending, blocked } = await expectStatementMatchesBalance(t, m.key);
    expect(Object.keys(available[0]!).sort()).toEqual(LINE_KEYS);
    const brief = (l: (typeof available)[number]) => [l.type, l.amount, l.balanceAfter, l.fee];
    expect(available.map(brief)).toEqual([
      ['CHARGE_PAID', 8_900, 8_900, 100],
      ['CHARGE_PAID', 4_900, 13_800, 100],
      ['REFUND', -5_000, 8_800, 0],
      ['REFUND_REVERSED', 5_000, 13_800, 0],
      ['DISPUTE_BLOCKED', -8_900, 4_900, 0],
      ['DISPUTE_RELEASED', 8_900, 13_800, 0],
      ['WITHDRAWAL', -1_050, 12_750, 50],
      ['WITHDRAWAL', -550, 12_200, 50],
      ['WITHDRAWAL_RETURNED', 550, 12_750, 0],
      ['CHARGE_PAID', 1_900, 14_650, 100],
      ['DISPUTE_BLOCKED', -1_900, 12_750, 0],
    ]);
    expect(pending.map(brief)).toEqual([
      ['WITHDRAWAL', 1_050, 1_050, 50],
      ['WITHDRAWAL_COMPLETED', -1_050, 0, 50],
      ['WITHDRAWAL', 550, 550, 50],
      ['WITHDRAWAL_RETURNED', -550, 0, 0],
    ]);
    expect(blocked.map(brief)).toEqual([
      ['DISPUTE_BLOCKED', 8_900, 8_900, 0],
      ['DISPUTE_RELEASED', -8_900, 0, 0],
      ['DISPUTE_BLOCKED', 1_900, 1_900, 0],
      ['DISPUTE_RETURNED', -1_900, 0, 0],
    ]);
    const ids = (l: (typeof available)[number]) => [l.chargeId, l.refundId, l.withdrawalId, l.disputeId, l.end2endId];
    expect(ids(available[0]!)).toEqual([c1.id, null, null, null, c1.end2endId]);
    expect(ids(available[2]!)).toEqual([c2.id, refunded.id, null, null, c2.end2endId]);
    expect(ids(available[3]!)).toEqual([c2.id, refunded.id, null, null, c2.end2endId]);
    expect(ids(available[4]!)).toEqual([c1.id, null, null, d1.id, c1.end2endId]);
    // Every line of a withdrawal carries its payout's end-to-end id once the PSP gave one.
    expect(ids(available[6]!)).toEqual([null, null, w1, null, w1done.end2endId]);
    expect(ids(available[7]!)).toEqual([null, null, w2, null, null]);
    expect(ids(pending[1]!)).toEqual([null, null, w1, null, w1done.end2endId]);
    expect(ids(blocked[3]!)).toEqual([c3.id, disputeRefund.id, null, d2.id, c3.end2endId]);
    for (const l of [...available, ...pending, ...blocked]) {
      expect(l.id).toMatch(/^stl_[0-9a-f]{12}[A-Za-z0-9_-]{22}$/);
      expect(l.description.length).toBeGreaterThan(0);
      expect(l.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(available.every((l) => l.account === 'available') && pending.every((l) => l.account === 'pending')).toBe(true);

    // The recipient: its share as SPLIT_RECEIVED, no fee, no end-to-end id of a PIX it did not receive.
    const split = await expectStatementMatchesBalance(t, r.key);
    expect(split.available.map((l) => [l.type, l.amount, l.balanceAfter, l.fee, l.chargeId, l.end2endId])).toEqual([
      ['SPLIT_RECEIVED', 1_000, 1_000, 0, c1.id, null],
    ]);
    await t.assertLedger();
  });

  it('is newest first, pages with cursors both ways, and filters by time (from inclusive, to exclusive)', async () => {
    const m = await t.merchant();
    for (const amount of [100, 200, 300, 400, 500]) await paid(m, { amount });
    const first = await t.request('GET', '/me/statement?limit=2', { key: m.key });
    expect(first.status).toBe(200);
    expect(first.body.data.map((l: { amount: number }) => l.amount)).toEqual([500, 400]);
    expect(first.body.pagination).toMatchObject({ hasMore: true, before: null });
    const second = await t.request('GET', `/me/statement?limit=2&after=${first.body.pagination.next}`, { key: m.key });
    expect(second.body.data.map((l: { amount: number }) => l.amount)).toEqual([300, 200]);
    const back = await t.request('GET', `/me/statement?limit=2&before=${second.body.pagination.before}`, { key: m.key });
    expect(back.body.data).toEqual(first.body.data);
    const all = await allLines(t, m.key);
    expect(all.map((l) => l.amount)).toEqual([100, 200, 300, 400, 500]);

    const [, b, , d] = all;
    const ranged = await t.request('GET', `/me/statement?from=${b!.createdAt}&to=${d!.createdAt}`, { key: m.key });
    const inRange = all.filter((l) => l.createdAt >= b!.createdAt && l.createdAt < d!.createdAt);
    expect(ranged.body.data.map((l: { id: string }) => l.id)).toEqual(inRange.map((l) => l.id).reverse());
    expect(inRange.map((l) => l.id)).toContain(b!.id);
    expect(inRange.map((l) => l.id)).not.toContain(d!.id);

    // A cursor is bound to its account and filters.
    expectError(await t.request('GET', `/me/statement?account=pending&after=${first.body.pagination.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    expectError(await t.request('GET', `/me/statement?from=${b!.createdAt}&after=${first.body.pagination.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
  });

  it('names the field of every invalid query and needs a key', async () => {
    const m = await t.merchant();
    const bad = async (query: string, message: string) =>
      expectError(await t.request('GET', `/me/statement?${query}`, { key: m.key }), 400, 'VALIDATION_ERROR', message);
    await bad('account=savings', 'account: must be one of available, pending, blocked');
    await bad('from=yesterday', 'from: must be a valid date-time');
    await bad('to=2026-13-01T00:00:00Z', 'to: must be a valid date-time');
    await bad('from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'to: must not be before from');
    await bad('limit=0', 'limit: must be >= 1');
    await bad('limit=101', 'limit: must be <= 100');
    await bad('after=abc', 'after: invalid cursor');
    await bad('after=a&before=b', 'before: cannot be combined with after');
    for (const path of ['/me/statement', '/me/statement.csv', '/me/statement.ofx', '/me/statement/daily']) {
      expectError(await t.request('GET', path), 401, 'UNAUTHORIZED');
    }
    const doc = (await t.request('GET', '/openapi.json')).body;
    for (const path of ['/me/statement', '/me/statement.csv', '/me/statement.ofx', '/me/statement/daily']) expect(doc.paths).toHaveProperty([path, 'get']);
    expect((await t.request('GET', '/me/statement', { key: m.key })).body).toEqual({
      data: [], pagination: { hasMore: false, next: null, before: null }, error: null, success: true,
    });
  });

  it('a credit left pending on a held balance row shows up, in its place, as soon as the statement is read', async () => {
    const m = await t.merchant();
    await paid(m, { amount: 1_000 });
    const holder = await t.pool.connect();
    try {
      await holder.query('BEGIN');
      await lockBalance(holder, m.id, 'available');
      await fund(t.pool, m.id, 250); // the row is held: a pending credit
      await fund(t.pool, m.id, 70);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect((await t.pool.query('SELECT count(*)::int AS n FROM ledger_pending_credits')).rows[0].n).toBeGreaterThan(0);
    expect(await balance(t, m)).toMatchObject({ available: 1_320 });
    const { available } = await expectStatementMatchesBalance(t, m.key);
    expect(available.map((l) => [l.amount, l.balanceAfter])).toEqual([[1_000, 1_000], [250, 1_250], [70, 1_320]]);
    expect((await t.pool.query('SELECT count(*)::int AS n FROM ledger_pending_credits')).rows[0].n).toBe(0);
    // The next posting finds nothing left to fold and continues the chain.
    await withTransaction(t.pool, (tx) => lockBalance(tx, m.id, 'available'));
    await paid(m, { amount: 100 });
    expect(chainProblems(await allLines(t, m.key))).toEqual([]);
    await t.assertLedger();
  });
});
