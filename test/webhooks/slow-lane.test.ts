import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from './support/receiver.js';
import { deliveriesOf, emit, register, sleep } from './support/helpers.js';
import { emitEvent } from '../../src/events/event.sql.js';
import { withTransaction, type Tx } from '../../src/platform/db.js';

const TIMEOUT = 1000;
let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT), WEBHOOK_RETRY_BASE_MS: '300' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

const hang = { hangMs: 30_000 };
const pair = async (eventId: string, endpointId: string) => (await t.pool.query<{ series: number; state: string; due_attempt: number | null; waiting: boolean }>(
  'SELECT series, state, due_attempt, due_at IS NOT NULL AS waiting FROM event_endpoints WHERE event_id = $1 AND endpoint_id = $2',
  [eventId, endpointId])).rows[0]!;
/** The endpoint's jobs waiting to run (a job that just ran an attempt may still be locked a moment after it). */
const jobsOf = async (endpointId: string) => (await t.pool.query<{ task: string }>(
  `SELECT task_identifier AS task FROM graphile_worker.jobs WHERE key LIKE '%:' || $1 AND locked_at IS NULL ORDER BY 1`, [endpointId])).rows.map((r) => r.task);

/**
 * An event to a new endpoint flagged slow, committed without the drain its fan-out queued, and `alter`ed
 * in the same transaction: the states a lost wake-up or an older release leave behind.
 */
async function slowEventWithoutDrain(chargeId: string, alter: (tx: Tx, eventId: string, endpointId: string) => Promise<unknown>) {
  const m = await t.merchant();
  const path = rx.path();
  const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
  await t.pool.query('UPDATE webhook_endpoints SET slow = true WHERE id = $1', [e.id]);
  const eventId = await withTransaction(t.pool, async (tx) => {
    const id = await emitEvent(tx, { merchantId: m.id, type: 'CHARGE_PAID', data: { id: chargeId } });
    await tx.query(`DELETE FROM graphile_worker._private_jobs WHERE key = 'webhook-drain:' || $1`, [e.id]);
    await alter(tx, id, e.id);
    return id;
  });
  return { path, e, eventId };
}

describe('the slow lane', () => {
  it('retries a slow endpoint from its pair, not as jobs; a redeliver to it goes through its drain; its record ends the wait', async () => {
    const m = await t.merchant();
    const path = rx.path(hang, hang, hang);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_slow_lane' });
    // Attempt 1 times out in the fast lane; attempt 2 then waits on the pair, and no delivery job exists for it.
    await eventually(async () => (await pair(eventId, e.id)).due_attempt === 2, TIMEOUT * 3);
    expect((await jobsOf(e.id)).filter((task) => task.startsWith('webhooks.deliver'))).toEqual([]);
    const records = await deliveriesOf(t, m.key, e.id, 3, TIMEOUT * 8);
    expect(records.map((r: any) => [r.attempt, r.success, r.manual])).toEqual([[3, false, false], [2, false, false], [1, false, false]]);
    expect(await pair(eventId, e.id)).toEqual({ series: 1, state: 'FAILED', due_attempt: null, waiting: false });

    const res = await t.request('POST', `/webhooks/${e.id}/redeliver`, { key: m.key, body: { eventId } });
    expect(res.status).toBe(200);
    expect((await jobsOf(e.id)).filter((task) => task.startsWith('webhooks.deliver'))).toEqual([]);
    const after = await deliveriesOf(t, m.key, e.id, 4, TIMEOUT * 4);
    expect(after[0]).toMatchObject({ attempt: 1, success: true, manual: true, statusCode: 200 });
    await eventually(async () => (await pair(eventId, e.id)).state === 'SUCCEEDED');
    expect(await pair(eventId, e.id)).toEqual({ series: 2, state: 'SUCCEEDED', due_attempt: null, waiting: false });
    // The fast answer put the endpoint back in the fast lane.
    expect((await t.pool.query('SELECT slow FROM webhook_endpoints WHERE id = $1', [e.id])).rows[0].slow).toBe(false);
  });

  it('a due pair whose drain was lost (it committed as its drain ended) gets one from the sweep', async () => {
    // The worker's sweep (every 5 s) held back while the lost pair is looked at.
    const sweepAt = (at: string) => t.pool.query(`UPDATE graphile_worker._private_jobs SET run_at = ${at} WHERE key = 'webhooks.drain-sweep'`);
    await sweepAt(`now() + interval '1 hour'`);
    const { path, e, eventId } = await slowEventWithoutDrain('chg_lost_drain', (tx, id) =>
      tx.query(`UPDATE event_endpoints SET due_at = now() - interval '1 minute' WHERE event_id = $1`, [id]));
    await sleep(TIMEOUT);
    expect(rx.hitsFor(path)).toHaveLength(0);
    expect(await pair(eventId, e.id)).toMatchObject({ due_attempt: 1, waiting: true });
    const metrics = (await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).raw;
    expect(metrics).toMatch(/^pixgate_webhook_slow_lane_waiting [1-9]/m);
    expect(Number(/^pixgate_webhook_slow_lane_oldest_waiting_age_seconds (\S+)/m.exec(metrics)![1])).toBeGreaterThanOrEqual(60);
    // The sweep's next run, now: the worker's own sweep queues the lost drain.
    expect((await t.pool.query(`SELECT 1 FROM graphile_worker.jobs WHERE task_identifier = 'webhooks.drain-sweep'`)).rowCount).toBe(1);
    await sweepAt('now()');
    await eventually(() => rx.hitsFor(path).length === 1, TIMEOUT * 5);
    await eventually(async () => (await pair(eventId, e.id)).state === 'SUCCEEDED');
  });

  it('a slow-lane job queued by a release before the drains (webhooks.deliver-slow) hands its delivery to the drain', async () => {
    // As that release left it: no wait on the pair, and a job per delivery.
    const { path, e, eventId } = await slowEventWithoutDrain('chg_old_release', async (tx, id, endpointId) => {
      await tx.query(`UPDATE event_endpoints SET due_at = NULL, due_attempt = NULL WHERE event_id = $1`, [id]);
      await tx.query(`SELECT graphile_worker.add_job('webhooks.deliver-slow', json_build_object('eventId', $1::text, 'endpointId', $2::text, 'attempt', 1),
        job_key => 'webhook:' || $1 || ':' || $2, priority => 1)`, [id, endpointId]);
    });
    await eventually(() => rx.hitsFor(path).length === 1, TIMEOUT * 3);
    await eventually(async () => (await pair(eventId, e.id)).state === 'SUCCEEDED');
    await eventually(async () => (await jobsOf(e.id)).length === 0);
  });
});
