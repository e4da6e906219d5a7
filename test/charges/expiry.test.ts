import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivePayment } from '../../src/charges/charge-payment.service.js';
import { newEndToEndId } from '../../src/pix/index.js';
import { enqueue } from '../../src/platform/jobs.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, check, createCharge, events, expectError, type Merchant } from './support.js';

let t: TestContext;
let m: Merchant;
beforeAll(async () => {
  t = await createTestContext();
  m = await t.merchant();
});
afterAll(async () => { await t?.close(); });

/** Moves a charge back in time so that its expiresAt has passed, leaving its expiry job where it was. */
async function backdate(id: string, seconds: number) {
  await t.pool.query(
    `UPDATE charges SET created_at = created_at - make_interval(secs => $2), expires_at = expires_at - make_interval(secs => $2) WHERE id = $1`,
    [id, seconds],
  );
}
/** Runs the expiry job now (same job key: it replaces the scheduled one). */
const runExpiryJob = (id: string) => enqueue(t.pool, 'charges.expire', { chargeId: id }, { jobKey: `charge-expire:${id}` });
const storedStatus = async (id: string) => (await t.pool.query('SELECT status FROM charges WHERE id = $1', [id])).rows[0].status;
const listIds = async (q: string) => (await t.request('GET', `/transparents/list?${q}`, { key: m.key })).body.data.map((c: any) => c.id);

describe('expiry', () => {
  it('reads show EXPIRED from expiresAt on, before the job runs, in check and in list filters', async () => {
    const c = await createCharge(t, m, { expiresIn: 60 });
    const fresh = await createCharge(t, m, { expiresIn: 60 });
    await backdate(c.id, 61);
    expect(await storedStatus(c.id)).toBe('PENDING');
    expect((await check(t, m, c.id)).status).toBe('EXPIRED');
    expect(await listIds(`id=${c.id}`)).toEqual([c.id]);
    expect((await t.request('GET', `/transparents/list?id=${c.id}`, { key: m.key })).body.data[0].status).toBe('EXPIRED');
    expect(await listIds('status=PENDING')).toContain(fresh.id);
    expect(await listIds('status=PENDING')).not.toContain(c.id);
    expect(await listIds('status=EXPIRED')).toContain(c.id);
    expect(await listIds('status=EXPIRED')).not.toContain(fresh.id);
  });

  it('is exact to the millisecond: EXPIRED as soon as expiresAt has come', async () => {
    const c = await createCharge(t, m, { expiresIn: 60 });
    await t.pool.query('UPDATE charges SET expires_at = created_at + interval \'1 millisecond\' WHERE id = $1', [c.id]);
    await new Promise((r) => setTimeout(r, 5));
    expect((await check(t, m, c.id)).status).toBe('EXPIRED');
  });

  it('the job moves PENDING to EXPIRED and emits CHARGE_EXPIRED exactly once', async () => {
    const c = await createCharge(t, m, { expiresIn: 60 });
    await backdate(c.id, 61);
    await runExpiryJob(c.id);
    await eventually(async () => (await storedStatus(c.id)) === 'EXPIRED');
    await runExpiryJob(c.id);
    await eventually(async () => (await t.pool.query("SELECT 1 FROM graphile_worker.jobs WHERE key = $1", [`charge-expire:${c.id}`])).rowCount === 0);
    const expired = await events(t, m.id, 'CHARGE_EXPIRED');
    expect(expired.filter((e) => e.data.id === c.id)).toHaveLength(1);
    const { imageBase64: _image, ...withoutImage } = await check(t, m, c.id);
    expect(expired.find((e) => e.data.id === c.id)!.data).toEqual(withoutImage);
  });

  it('a job that runs before expiresAt leaves the charge PENDING', async () => {
    const c = await createCharge(t, m, { expiresIn: 600 });
    await runExpiryJob(c.id);
    await eventually(async () => {
      const { rows } = await t.pool.query('SELECT run_at FROM graphile_worker.jobs WHERE key = $1 AND attempts = 0', [`charge-expire:${c.id}`]);
      return rows.length === 1 && Math.abs(rows[0].run_at.getTime() - Date.parse(c.expiresAt)) < 1000;
    });
    expect(await storedStatus(c.id)).toBe('PENDING');
    expect((await events(t, m.id, 'CHARGE_EXPIRED')).filter((e) => e.data.id === c.id)).toEqual([]);
  });

  it('the simulator refuses to pay an expired charge (INVALID_STATE), before and after the job', async () => {
    const c = await createCharge(t, m, { expiresIn: 60 });
    await backdate(c.id, 61);
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`), 400, 'INVALID_STATE');
    await runExpiryJob(c.id);
    await eventually(async () => (await storedStatus(c.id)) === 'EXPIRED');
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`), 400, 'INVALID_STATE');
  });

  it('a late provider payment of an EXPIRED charge is still credited and the charge becomes PAID', async () => {
    const own = await t.merchant();
    const c = await createCharge(t, own, { amount: 2200, expiresIn: 60 });
    await backdate(c.id, 61);
    await runExpiryJob(c.id);
    await eventually(async () => (await storedStatus(c.id)) === 'EXPIRED');
    const paid = await receivePayment(t.rt, { txid: c.txid, endToEndId: newEndToEndId('12345678', new Date()), amount: 2200, paidAt: new Date() });
    expect(paid.status).toBe('PAID');
    expect((await check(t, own, c.id)).status).toBe('PAID');
    expect(await balance(t, own)).toMatchObject({ available: 2200 });
    expect(await events(t, own.id, 'CHARGE_PAID')).toHaveLength(1);
    await t.assertLedger();
  });

  it('a paid charge is never expired by its job', async () => {
    const own = await t.merchant();
    const c = await createCharge(t, own, { expiresIn: 60 });
    await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`);
    await backdate(c.id, 61);
    await runExpiryJob(c.id);
    await eventually(async () => (await t.pool.query('SELECT 1 FROM graphile_worker.jobs WHERE key = $1', [`charge-expire:${c.id}`])).rowCount === 0);
    expect((await check(t, own, c.id)).status).toBe('PAID');
    expect(await events(t, own.id, 'CHARGE_EXPIRED')).toEqual([]);
  });
});
