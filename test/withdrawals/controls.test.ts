import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balanceOf, createWithdrawal, FULL_FIELDS, fundedMerchant, LIST_FIELDS, ledgerKinds, simPayoutCount } from './helpers.js';

// Payouts wait for the operator: nothing settles on its own in this file.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '600000' }); });
afterAll(async () => { await t?.close(); });

/** A withdrawal the worker has sent to the (simulated) provider. */
async function processing(key: string, body: Record<string, unknown>) {
  const created = await createWithdrawal(t, key, body);
  expect(created.status, created.raw).toBe(201);
  const id: string = created.body.data.id;
  await eventually(async () => (await t.request('GET', `/withdrawals/${id}`, { key })).body.data.status === 'PROCESSING');
  await eventually(async () => (await simPayoutCount(t, id)) === 1);
  return id;
}

describe('simulator controls for payouts', () => {
  it('PROCESSING keeps amount + fee in pending; complete → 200 full record; then INVALID_STATE', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
    const id = await processing(m.key, { amount: 4000 });
    expect(await balanceOf(t, m.key)).toEqual({ available: 5900, pending: 4100, blocked: 0 });
    const res = await t.admin('POST', `/admin/simulator/withdrawals/${id}/complete`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(FULL_FIELDS);
    expect(res.body.data).toMatchObject({ id, status: 'COMPLETED', amount: 4000, fee: 100, failedReason: null });
    expect(res.body.data.end2endId).toMatch(/^E99999999/);
    expect((await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data).toEqual(res.body.data);
    expect(await balanceOf(t, m.key)).toEqual({ available: 5900, pending: 0, blocked: 0 });
    for (const action of ['complete', 'fail']) {
      const again = await t.admin('POST', `/admin/simulator/withdrawals/${id}/${action}`);
      expect({ status: again.status, body: again.body }).toEqual({
        status: 400, body: { error: 'INVALID_STATE', message: `Withdrawal ${id} is already COMPLETED`, success: false },
      });
    }
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
    expect(await simPayoutCount(t, id)).toBe(1);
    await t.assertLedger();
  });

  it('fail with a reason, and without a body (default reason); the fee is returned too', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 250 });
    const id1 = await processing(m.key, { amount: 1000 });
    const res1 = await t.admin('POST', `/admin/simulator/withdrawals/${id1}/fail`, { reason: 'Conta destino encerrada' });
    expect(res1.status).toBe(200);
    expect(res1.body.data).toMatchObject({ id: id1, status: 'FAILED', failedReason: 'Conta destino encerrada', completedAt: null, end2endId: null });
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    const id2 = await processing(m.key, { amount: 2000 });
    const res2 = await t.admin('POST', `/admin/simulator/withdrawals/${id2}/fail`);
    expect(res2.status).toBe(200);
    expect(res2.body.data).toMatchObject({ status: 'FAILED', failedReason: 'Payout rejected by the receiving institution' });
    const again = await t.admin('POST', `/admin/simulator/withdrawals/${id2}/complete`);
    expect(again.body).toEqual({ error: 'INVALID_STATE', message: `Withdrawal ${id2} is already FAILED`, success: false });
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    expect(await ledgerKinds(t, id2)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE']);
    const { rows } = await t.pool.query(`SELECT type, body::jsonb -> 'data' AS data FROM events WHERE merchant_id = $1 ORDER BY created_at, id`, [m.id]);
    expect(rows).toEqual([{ type: 'WITHDRAWAL_FAILED', data: res1.body.data }, { type: 'WITHDRAWAL_FAILED', data: res2.body.data }]);
    await t.assertLedger();
  });

  it('unknown withdrawal → 404; invalid reason → VALIDATION_ERROR; a merchant key → 401', async () => {
    for (const action of ['complete', 'fail']) {
      const res = await t.admin('POST', `/admin/simulator/withdrawals/wd_unknown/${action}`);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'NOT_FOUND', message: 'Withdrawal not found', success: false } });
    }
    const m = await fundedMerchant(t, 1000);
    const id = await processing(m.key, { amount: 100 });
    const bad = await t.admin('POST', `/admin/simulator/withdrawals/${id}/fail`, { reason: '' });
    expect(bad.body).toEqual({ error: 'VALIDATION_ERROR', message: 'reason: must have at least 1 character', success: false });
    const asMerchant = await t.request('POST', `/admin/simulator/withdrawals/${id}/complete`, { key: m.key });
    expect(asMerchant.status).toBe(401);
    expect((await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data.status).toBe('PROCESSING');
    await t.assertLedger();
  });
});

describe('GET /withdrawals', () => {
  it('lists newest first with completedAt and failedReason, filters by status, pages with cursors', async () => {
    const m = await fundedMerchant(t, 100_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await processing(m.key, { amount: 1000 + i });
      ids.push(id);
      await t.admin('POST', `/admin/simulator/withdrawals/${id}/${i % 2 ? 'fail' : 'complete'}`);
    }
    const open = await processing(m.key, { amount: 9999 });
    const all = await t.request('GET', '/withdrawals', { key: m.key });
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ hasMore: false, next: null, before: null });
    expect(all.body.data.map((w: any) => w.id)).toEqual([...ids, open].reverse());
    for (const w of all.body.data) expect(Object.keys(w).sort()).toEqual(LIST_FIELDS);
    const failedItem = all.body.data.find((w: any) => w.id === ids[1]);
    expect(failedItem).toMatchObject({ status: 'FAILED', failedReason: 'Payout rejected by the receiving institution', completedAt: null });
    expect(all.body.data.find((w: any) => w.id === ids[0]).completedAt).toMatch(/Z$/);

    const failed = await t.request('GET', '/withdrawals?status=FAILED', { key: m.key });
    expect(failed.body.data.map((w: any) => w.id)).toEqual([ids[3], ids[1]]);
    const completed = await t.request('GET', '/withdrawals?status=COMPLETED&limit=2', { key: m.key });
    expect(completed.body.data.map((w: any) => w.id)).toEqual([ids[4], ids[2]]);
    expect(completed.body.pagination.hasMore).toBe(true);
    const page2 = await t.request('GET', `/withdrawals?status=COMPLETED&limit=2&after=${completed.body.pagination.next}`, { key: m.key });
    expect(page2.body.data.map((w: any) => w.id)).toEqual([ids[0]]);
    expect(page2.body.pagination.hasMore).toBe(false);
    const back = await t.request('GET', `/withdrawals?status=COMPLETED&limit=2&before=${page2.body.pagination.before}`, { key: m.key });
    expect(back.body.data).toEqual(completed.body.data);

    // A cursor is bound to its filters and its merchant.
    const otherFilter = await t.request('GET', `/withdrawals?status=FAILED&after=${completed.body.pagination.next}`, { key: m.key });
    expect(otherFilter.body).toEqual({ error: 'VALIDATION_ERROR', message: 'after: invalid cursor', success: false });
    const other = await t.merchant();
    const otherMerchant = await t.request('GET', `/withdrawals?status=COMPLETED&after=${completed.body.pagination.next}`, { key: other.key });
    expect(otherMerchant.body.error).toBe('VALIDATION_ERROR');
    expect((await t.request('GET', '/withdrawals', { key: other.key })).body.data).toEqual([]);
    const badStatus = await t.request('GET', '/withdrawals?status=DONE', { key: m.key });
    expect(badStatus.body).toEqual({ error: 'VALIDATION_ERROR', message: 'status: must be one of PENDING, PROCESSING, COMPLETED, FAILED', success: false });
    await t.assertLedger();
  });
});
