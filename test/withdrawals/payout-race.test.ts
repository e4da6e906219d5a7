// docs/contract/psp.md#payout-jobs: one job at a time per payout. A PSP that takes 15 s to answer the first
// send while the recovery sweep keeps re-queueing the withdrawal, and that refuses a second send of the same
// idEnvio with 422: the sweep's job must not send beside the running one, so the 422 never reaches the
// first send and the withdrawal is paid once, never failed with its money back while the PSP pays it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';
import { balanceOf, fundedMerchant, ledgerKinds } from './helpers.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext({
    ...psp.env,
    // The client waits for the slow answer; the sweep runs every 300 ms and takes a withdrawal unchanged for 1 s.
    API_PIX_TIMEOUT_MS: '30000', API_PIX_POLL_INTERVAL_MS: '200',
    WITHDRAWAL_SWEEP_INTERVAL_MS: '300', WITHDRAWAL_STUCK_AFTER_MS: '1000',
  });
});
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const SEND = 'PUT /api/v2/gn/pix/';

describe('a slow first send while the recovery sweep runs', () => {
  it('is the only send: COMPLETED once, the money paid out, never returned to available', async () => {
    psp.duplicateSends = 'refuse';
    psp.delayNext(SEND, 15_000);
    const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
    const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 3000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' } });
    expect(res.status).toBe(201);
    const id: string = res.body.data.id;
    const idEnvio = id.replace('_', '');
    const sends = () => psp.seen.filter((s) => s.method === 'PUT' && s.path === `/api/v2/gn/pix/${idEnvio}`).length;
    const read = async () => (await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data;

    // The first send is on its way (recorded, and not asked about first: it was never sent); the sweep takes
    // the unchanged withdrawal again and again meanwhile.
    const sentAt = Date.now();
    await eventually(async () => (await t.pool.query('SELECT payout_sends FROM withdrawals WHERE id = $1', [id])).rows[0].payout_sends === 1, 5000);
    await new Promise((r) => setTimeout(r, 5000));
    expect((await read()).status).toBe('PROCESSING');
    // The PSP answers the first send after 15 s; once that answer has reached its job, the withdrawal is
    // still PROCESSING with its money reserved (not FAILED with amount + fee back in available).
    await new Promise((r) => setTimeout(r, Math.max(0, sentAt + 17_000 - Date.now())));
    expect(await read()).toMatchObject({ status: 'PROCESSING', failedReason: null });
    expect(await balanceOf(t, m.key)).toEqual({ available: 6900, pending: 3100, blocked: 0 });
    // Then the PSP pays it.
    const envio = psp.envios.get(idEnvio)!;
    envio.status = 'REALIZADO';
    const done = await eventually(async () => {
      const w = await read();
      return w.status !== 'PROCESSING' && w;
    }, 10_000, 100);
    expect(done).toMatchObject({ status: 'COMPLETED', end2endId: envio.endToEndId, failedReason: null });
    expect(sends()).toBe(1);
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
    expect(await balanceOf(t, m.key)).toEqual({ available: 6900, pending: 0, blocked: 0 });
    const events = await t.pool.query('SELECT type FROM events WHERE merchant_id = $1 ORDER BY created_at', [m.id]);
    expect(events.rows).toEqual([{ type: 'WITHDRAWAL_COMPLETED' }]);
    await t.assertLedger();
  }, 60_000);
});
