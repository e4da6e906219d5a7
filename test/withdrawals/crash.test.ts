import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleSimPayout } from '../../src/providers/simulator/sim-payouts.provider.js';
import { runWorker } from '../../src/composition.js';
import { processJob, processWithdrawal, SimulatedCrash, type CrashPoint } from '../../src/withdrawals/withdrawal-processing.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balanceOf, createWithdrawal, fundedMerchant, ledgerKinds, simPayoutCount } from './helpers.js';

// No worker runs unless a test starts one: the test plays the worker that dies, then restarts one.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '20' }, { worker: false }); });
afterAll(async () => { await t?.close(); });

/** What a worker killed mid-job leaves in the queue: the job locked by it, for graphile-worker's 4 hours. */
async function lockedByDeadWorker(jobKey: string) {
  const { rowCount } = await t.pool.query(
    `UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'dead-worker', attempts = attempts + 1 WHERE key = $1`, [jobKey]);
  expect(rowCount).toBe(1);
}

const status = async (id: string) => (await t.pool.query('SELECT status FROM withdrawals WHERE id = $1', [id])).rows[0].status as string;

/** Restart: the stuck withdrawal is past the sweep's threshold; a new worker starts and the sweep takes it from there. */
async function restartUntilSettled(id: string) {
  await t.pool.query(`UPDATE withdrawals SET updated_at = now() - interval '10 minutes' WHERE id = $1`, [id]);
  const worker = await runWorker(t.rt);
  try {
    await eventually(async () => ['COMPLETED', 'FAILED'].includes(await status(id)), 15_000);
  } finally {
    await worker.stop();
  }
}

async function newWithdrawal(body: Record<string, unknown> = {}) {
  const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
  const res = await createWithdrawal(t, m.key, { amount: 1000, ...body });
  expect(res.status, res.raw).toBe(201);
  await lockedByDeadWorker(processJob.key(res.body.data.id));
  return { m, id: res.body.data.id as string };
}

async function expectReserved(key: string, id: string) {
  expect(await balanceOf(t, key)).toEqual({ available: 8900, pending: 1100, blocked: 0 });
  expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE']);
}

async function expectPaidOnce(m: { id: string; key: string }, id: string) {
  expect(await status(id)).toBe('COMPLETED');
  expect(await simPayoutCount(t, id)).toBe(1);
  expect(await balanceOf(t, m.key)).toEqual({ available: 8900, pending: 0, blocked: 0 });
  expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
  const events = await t.pool.query('SELECT type FROM events WHERE merchant_id = $1', [m.id]);
  expect(events.rows).toEqual([{ type: 'WITHDRAWAL_COMPLETED' }]);
  await t.assertLedger();
}

describe('a worker killed during processing, then restarted', () => {
  it.each<[CrashPoint, string, number]>([
    ['start', 'PENDING', 0],
    ['afterProcessing', 'PROCESSING', 0],
    ['afterSend', 'PROCESSING', 1],
  ])('crash at %s: left %s with %i payout(s); after restart exactly one COMPLETED, paid once', async (point, left, payouts) => {
    const { m, id } = await newWithdrawal();
    await expect(processWithdrawal(t.rt, id, { crashAt: point })).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await status(id)).toBe(left);
    expect(await simPayoutCount(t, id)).toBe(payouts);
    await expectReserved(m.key, id);
    await restartUntilSettled(id);
    await expectPaidOnce(m, id);
  });

  it('crash while recording the result (provider settled, core not told): nothing half-written; restart completes it', async () => {
    const { m, id } = await newWithdrawal();
    await processWithdrawal(t.rt, id);
    expect(await status(id)).toBe('PROCESSING');
    await lockedByDeadWorker(`sim:payout:settle:${id}`);
    await expect(settleSimPayout(t.rt, id, { crashAt: 'beforeResultCommit' })).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await status(id)).toBe('PROCESSING');
    const { rows } = await t.pool.query('SELECT status FROM sim_payouts WHERE withdrawal_id = $1', [id]);
    expect(rows[0].status).toBe('COMPLETED');
    await expectReserved(m.key, id);
    expect((await t.pool.query('SELECT count(*)::int AS n FROM events WHERE merchant_id = $1', [m.id])).rows[0].n).toBe(0);
    await restartUntilSettled(id);
    await expectPaidOnce(m, id);
  });

  it('the provider\'s settlement job died with the worker too: asking about the overdue payout settles it', async () => {
    const { m, id } = await newWithdrawal();
    await processWithdrawal(t.rt, id);
    await lockedByDeadWorker(`sim:payout:settle:${id}`);
    const { rows } = await t.pool.query('SELECT status FROM sim_payouts WHERE withdrawal_id = $1', [id]);
    expect(rows[0].status).toBe('PROCESSING');
    await restartUntilSettled(id);
    await expectPaidOnce(m, id);
  });

  it('crash after sending a payout that fails: FAILED once, amount and fee back in available', async () => {
    const { m, id } = await newWithdrawal({ pixKey: 'nobody@fail.test', pixKeyType: 'EMAIL' });
    await expect(processWithdrawal(t.rt, id, { crashAt: 'afterSend' })).rejects.toBeInstanceOf(SimulatedCrash);
    await restartUntilSettled(id);
    expect(await status(id)).toBe('FAILED');
    expect(await simPayoutCount(t, id)).toBe(1);
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE']);
    await t.assertLedger();
  });

  it('the sweep leaves recent withdrawals alone (below the threshold)', async () => {
    const { id } = await newWithdrawal();
    const worker = await runWorker(t.rt);
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(await status(id)).toBe('PENDING');
    } finally {
      await worker.stop();
    }
    await restartUntilSettled(id);
    expect(await status(id)).toBe('COMPLETED');
    await t.assertLedger();
  });
});

describe('processing run more than once', () => {
  it('concurrent and repeated runs send one payout and settle once', async () => {
    const { m, id } = await newWithdrawal();
    await Promise.all([processWithdrawal(t.rt, id), processWithdrawal(t.rt, id), processWithdrawal(t.rt, id)]);
    await processWithdrawal(t.rt, id);
    expect(await simPayoutCount(t, id)).toBe(1);
    await settleSimPayout(t.rt, id);
    await settleSimPayout(t.rt, id);
    await processWithdrawal(t.rt, id);
    await expectPaidOnce(m, id);
  });

  it('the provider deduplicates sends by withdrawal id', async () => {
    const { id } = await newWithdrawal();
    await processWithdrawal(t.rt, id);
    const request = { withdrawalId: id, amount: 1000, pixKey: 'x', pixKeyType: 'CHAVE_ALEATORIA' as const, description: null, taxId: null };
    expect(await t.rt.provider.sendPayout(request)).toEqual({ status: 'PROCESSING' });
    await settleSimPayout(t.rt, id);
    const again = await t.rt.provider.sendPayout(request);
    expect(again).toMatchObject({ status: 'COMPLETED', endToEndId: expect.stringMatching(/^E99999999/) });
    expect(await t.rt.provider.getPayout(id)).toEqual(again);
    expect(await t.rt.provider.getPayout('wd_never_sent')).toBeNull();
    expect(await simPayoutCount(t, id)).toBe(1);
    await t.assertLedger();
  });
});

describe('the operator drives a withdrawal that no worker picked up yet', () => {
  it('complete on PENDING: moved through PROCESSING; the later job finds it settled and sends nothing', async () => {
    const { m, id } = await newWithdrawal();
    expect(await status(id)).toBe('PENDING');
    const res = await t.admin('POST', `/admin/simulator/withdrawals/${id}/complete`);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('COMPLETED');
    await processWithdrawal(t.rt, id);
    await expectPaidOnce(m, id);
  });

  it('fail on PENDING returns everything', async () => {
    const { m, id } = await newWithdrawal();
    const res = await t.admin('POST', `/admin/simulator/withdrawals/${id}/fail`, { reason: 'Chave inexistente' });
    expect(res.body.data).toMatchObject({ status: 'FAILED', failedReason: 'Chave inexistente' });
    await processWithdrawal(t.rt, id);
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });
});
