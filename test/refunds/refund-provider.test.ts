import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestProviderRefund, settleRefund } from '../../src/refunds/refund-settlement.service.js';
import { runWorker } from '../../src/composition.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, check, createCharge, events, pay } from '../charges/support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_REFUND_DELAY_MS: '50' }); });
afterAll(async () => { await t?.close(); });

async function refunded() {
  const m = await t.merchant();
  const c = await createCharge(t, m, { amount: 5_000 });
  await pay(t, c.id);
  const res = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key });
  expect(res.status).toBe(200);
  return { m, c, refundId: res.body.data.refund.id as string };
}

describe('refunds through the provider', () => {
  it('complete on their own after SIM_REFUND_DELAY_MS', async () => {
    const { m, c } = await refunded();
    await eventually(async () => (await check(t, m, c.id)).refund.status === 'COMPLETED');
    expect(await events(t, m.id, 'REFUND_COMPLETED')).toHaveLength(1);
    await t.assertLedger();
  });

  it('the core outcome function is idempotent: a settled refund ignores a second outcome', async () => {
    const { m, c, refundId } = await refunded();
    await eventually(async () => (await check(t, m, c.id)).refund.status === 'COMPLETED');
    const after = await settleRefund(t.rt, refundId, { status: 'FAILED', reason: 'late' });
    expect(after.refund).toMatchObject({ status: 'COMPLETED' });
    expect(after.status).toBe('REFUNDED');
    await requestProviderRefund(t.rt, refundId); // a rerun of the refund job after completion does nothing
    expect(await events(t, m.id, 'REFUND_FAILED')).toEqual([]);
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    await t.assertLedger();
  });
});

describe('recovery', () => {
  it('a refund whose jobs were lost is requested again when a worker starts', async () => {
    const quiet = await createTestContext({ SIM_REFUND_DELAY_MS: '50' }, { worker: false });
    try {
      const m = await quiet.merchant();
      const c = (await quiet.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1_000 } })).body.data;
      await quiet.admin('POST', `/admin/simulator/charges/${c.id}/pay`);
      const res = await quiet.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key });
      expect(res.body.data.refund.status).toBe('PENDING');
      await quiet.pool.query('DELETE FROM graphile_worker._private_jobs'); // the crash lost every queued job
      const worker = await runWorker(quiet.rt);
      try {
        await eventually(async () => (await quiet.request('GET', `/transparents/check?id=${c.id}`, { key: m.key })).body.data.refund.status === 'COMPLETED');
      } finally {
        await worker.stop();
      }
      await quiet.assertLedger();
    } finally {
      await quiet.close();
    }
  });
});
