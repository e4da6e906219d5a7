// docs/withdrawals.md#processing-and-crash-safety: a process that runs a worker starts a withdrawal it created
// right after the create's commit, with no job queued; the first send is recorded with PROCESSING in one
// statement and made without asking the PSP first (a payout never sent cannot exist there).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processJob } from '../../src/withdrawals/withdrawal-processing.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';
import { balanceOf, fundedMerchant, ledgerKinds } from './helpers.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext({ ...psp.env, API_PIX_POLL_INTERVAL_MS: '100' });
});
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

describe('a withdrawal created by a process that runs a worker', () => {
  it('is sent at once without a job and without asking the PSP first; the PSP\'s word completes it, paid once', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
    const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 3000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' } });
    expect(res.status).toBe(201);
    const id: string = res.body.data.id;
    const idEnvio = id.replace('_', '');
    // Nothing was queued for it: its processing runs in this process.
    const job = await t.pool.query('SELECT 1 FROM graphile_worker._private_jobs WHERE key = $1', [processJob.key(id)]);
    expect(job.rowCount).toBe(0);
    await eventually(() => psp.envios.has(idEnvio), 5000);
    const calls = psp.seen.filter((s) => s.path.endsWith(`/${idEnvio}`)).map((s) => s.method);
    expect(calls[0]).toBe('PUT');
    expect(calls.filter((c) => c === 'PUT')).toHaveLength(1);
    const { rows } = await t.pool.query('SELECT status, payout_sends FROM withdrawals WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'PROCESSING', payout_sends: 1 });

    const envio = psp.envios.get(idEnvio)!;
    envio.status = 'REALIZADO';
    await eventually(async () => (await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data.status === 'COMPLETED', 10_000, 100);
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
    expect(await balanceOf(t, m.key)).toEqual({ available: 6900, pending: 0, blocked: 0 });
    const events = await t.pool.query('SELECT type FROM events WHERE merchant_id = $1', [m.id]);
    expect(events.rows).toEqual([{ type: 'WITHDRAWAL_COMPLETED' }]);
    await t.assertLedger();
  });

  it('refused on that first send (400/422): FAILED with the money returned, as the only send it was', async () => {
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
    psp.failNext('PUT /api/v2/gn/pix/', 422, 'Chave inexistente');
    const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 3000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' } });
    expect(res.status).toBe(201);
    const id: string = res.body.data.id;
    const done = await eventually(async () => {
      const w = (await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data;
      return w.status === 'FAILED' && w;
    }, 10_000, 100);
    expect(done.failedReason).toMatch(/^Payout refused by the PSP/);
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE']);
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });
});
