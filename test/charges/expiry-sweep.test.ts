import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiries } from '../../src/charges/charge-expiry.service.js';
import { runWorker } from '../../src/composition.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { createCharge, events, pay, type Merchant } from './support.js';

// Creation enqueues no expiry job; the sweep gives one to each charge expiring within a minute.
let t: TestContext;
let m: Merchant;
beforeAll(async () => {
  t = await createTestContext({}, { worker: false });
  m = await t.merchant();
});
afterAll(async () => { await t?.close(); });

const expiryJobs = async (id: string) =>
  (await t.pool.query('SELECT run_at, task_identifier, revision FROM graphile_worker.jobs WHERE key = $1', [`charge-expire:${id}`])).rows;

describe('expiry sweep', () => {
  it('schedules, once, the job of each PENDING charge expiring within a minute, due at expiresAt', async () => {
    const soon = await createCharge(t, m, { expiresIn: 60 });
    const later = await createCharge(t, m, { expiresIn: 3600 });
    const paid = await createCharge(t, m, { expiresIn: 60 });
    await pay(t, paid.id);
    expect(await expiryJobs(soon.id)).toEqual([]);

    await sweepExpiries(t.rt);
    await sweepExpiries(t.rt);
    const jobs = await expiryJobs(soon.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].run_at.toISOString()).toBe(soon.expiresAt);
    expect(jobs[0].task_identifier).toBe('charges.expire');
    expect(jobs[0].revision).toBe(0); // the second sweep left it alone
    expect(await expiryJobs(later.id)).toEqual([]);
    expect(await expiryJobs(paid.id)).toEqual([]);

    const { rows } = await t.pool.query(`SELECT run_at FROM graphile_worker.jobs WHERE key = 'charges.schedule-expiries'`);
    expect(rows).toHaveLength(1);
    expect(Math.abs(rows[0].run_at.getTime() - (Date.now() + 30_000))).toBeLessThan(5000);
  });

  it('gives an overdue charge whose job was lost a job again', async () => {
    const c = await createCharge(t, m, { expiresIn: 60 });
    await t.pool.query(`UPDATE charges SET created_at = created_at - interval '3 minutes', expires_at = expires_at - interval '3 minutes' WHERE id = $1`, [c.id]);
    await sweepExpiries(t.rt);
    expect(await expiryJobs(c.id)).toHaveLength(1);
  });

  it('with a worker running, a charge reaching expiresAt becomes EXPIRED with one CHARGE_EXPIRED', async () => {
    const own = await t.merchant();
    const c = await createCharge(t, own, { expiresIn: 60 });
    // Due in half a second: the sweep the worker starts with schedules it, the job runs at expiresAt.
    await t.pool.query(`UPDATE charges SET created_at = created_at - interval '59.5 seconds', expires_at = expires_at - interval '59.5 seconds' WHERE id = $1`, [c.id]);
    const worker = await runWorker(t.rt);
    try {
      await eventually(async () => (await t.pool.query('SELECT status FROM charges WHERE id = $1', [c.id])).rows[0].status === 'EXPIRED');
      expect((await events(t, own.id, 'CHARGE_EXPIRED')).map((e) => e.data.id)).toEqual([c.id]);
    } finally {
      await worker.stop();
    }
    await t.assertLedger();
  });
});
