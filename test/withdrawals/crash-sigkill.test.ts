import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { withDatabaseName } from '../../src/platform/database.js';
import { runWorker } from '../../src/composition.js';
import { processJob } from '../../src/withdrawals/withdrawal-processing.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balanceOf, createWithdrawal, fundedMerchant, ledgerKinds, simPayoutCount } from './helpers.js';

// A real worker process is SIGKILLed mid-job; this process then plays the restarted worker.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '20' }, { worker: false }); });
afterAll(async () => { await t?.close(); });

const child = fileURLToPath(new URL('./dying-worker.ts', import.meta.url));

async function runDyingWorker(point: string, apiKey = ''): Promise<NodeJS.Signals | null> {
  const { rows } = await t.pool.query<{ db: string }>('SELECT current_database() AS db');
  const url = withDatabaseName(inject('serverUrl'), rows[0]!.db);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, url, point, apiKey], { stdio: 'ignore' });
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error('the worker did not die')); }, 20_000);
    proc.on('exit', (_code, signal) => { clearTimeout(timer); resolve(signal); });
    proc.on('error', reject);
  });
}

describe('SIGKILL of a real worker process', () => {
  it.each(['afterProcessing', 'afterSend'])('killed %s: its job stays locked; a new worker finishes it, paid once', async (point) => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
    const res = await createWithdrawal(t, m.key, { amount: 1000 });
    const id: string = res.body.data.id;
    expect(await runDyingWorker(point)).toBe('SIGKILL');

    const { rows } = await t.pool.query('SELECT status FROM withdrawals WHERE id = $1', [id]);
    expect(rows[0].status).toBe('PROCESSING');
    expect(await simPayoutCount(t, id)).toBe(point === 'afterSend' ? 1 : 0);
    const job = await t.pool.query('SELECT locked_at, locked_by FROM graphile_worker._private_jobs WHERE key = $1', [processJob.key(id)]);
    expect(job.rows[0].locked_at).not.toBeNull();
    expect(await balanceOf(t, m.key)).toEqual({ available: 8900, pending: 1100, blocked: 0 });

    await t.pool.query(`UPDATE withdrawals SET updated_at = now() - interval '10 minutes' WHERE id = $1`, [id]);
    const worker = await runWorker(t.rt);
    try {
      await eventually(async () => (await t.pool.query('SELECT status FROM withdrawals WHERE id = $1', [id])).rows[0].status === 'COMPLETED', 15_000);
    } finally {
      await worker.stop();
    }
    expect(await simPayoutCount(t, id)).toBe(1);
    expect(await balanceOf(t, m.key)).toEqual({ available: 8900, pending: 0, blocked: 0 });
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
    await t.assertLedger();
  }, 40_000);

  it('a serve process dies as the first send of a withdrawal it started itself begins: no job was queued, the sweep finishes it, paid once', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
    expect(await runDyingWorker('inProcess', m.key)).toBe('SIGKILL');
    const { rows } = await t.pool.query('SELECT id, status, payout_sends FROM withdrawals WHERE merchant_id = $1', [m.id]);
    expect(rows).toEqual([{ id: expect.any(String), status: 'PROCESSING', payout_sends: 1 }]);
    const id: string = rows[0].id;
    expect(await simPayoutCount(t, id)).toBe(0);
    const job = await t.pool.query('SELECT 1 FROM graphile_worker._private_jobs WHERE key = $1', [processJob.key(id)]);
    expect(job.rowCount).toBe(0);

    // The sweep takes it once it has not moved for WITHDRAWAL_STUCK_AFTER_MS; its run asks the PSP, then sends.
    await t.pool.query(`UPDATE withdrawals SET updated_at = now() - interval '10 minutes' WHERE id = $1`, [id]);
    const worker = await runWorker(t.rt);
    try {
      await eventually(async () => (await t.pool.query('SELECT status FROM withdrawals WHERE id = $1', [id])).rows[0].status === 'COMPLETED', 15_000);
    } finally {
      await worker.stop();
    }
    expect(await simPayoutCount(t, id)).toBe(1);
    expect((await t.pool.query('SELECT payout_sends FROM withdrawals WHERE id = $1', [id])).rows[0].payout_sends).toBe(2);
    expect(await balanceOf(t, m.key)).toEqual({ available: 8900, pending: 0, blocked: 0 });
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
    await t.assertLedger();
  }, 40_000);
});
