import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from './support/receiver.js';
import { emit, register } from './support/helpers.js';

const TIMEOUT = 6000;
let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  // Default worker: 50 fast-lane slots per process (a merchant's share: 20), 20 slow-lane slots.
  t = await createTestContext({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT), WEBHOOK_RETRY_BASE_MS: '600000' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

/** The merchant's jobs of a task (their keys end with the endpoint's id). */
const jobs = async (task: string, merchantId: string) => (await t.pool.query<{ n: number }>(
  `SELECT count(*)::int AS n FROM graphile_worker.jobs j JOIN webhook_endpoints w ON j.key LIKE '%:' || w.id
   WHERE j.task_identifier = $1 AND w.merchant_id = $2`, [task, merchantId])).rows[0]!.n;

describe('fairness between merchants', () => {
  // First: the test after it leaves the slow lane busy with hanging deliveries for a while.
  it('after an attempt that timed out, the endpoint\'s deliveries go to the slow lane, and back after a fast one', async () => {
    const m = await t.merchant();
    const path = rx.path({ hangMs: 60_000 });
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID', 'CHARGE_EXPIRED']);
    await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_slow' });
    const slow = async () => (await t.pool.query('SELECT slow FROM webhook_endpoints WHERE id = $1', [e.id])).rows[0].slow as boolean;
    await eventually(slow, TIMEOUT * 2);
    const eventId = await emit(t, m.id, 'CHARGE_EXPIRED', { id: 'chg_next' });
    // Delivered by the slow lane (it answers at once now), after which the endpoint is fast again.
    await eventually(() => rx.hitsFor(path).some((h) => JSON.parse(h.raw.toString()).id === eventId), TIMEOUT);
    await eventually(async () => !(await slow()));
  });

  it('a merchant whose receivers hang takes at most its share of the fast lane; another merchant\'s delivery goes through meanwhile', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    const hanging: string[] = [];
    for (let i = 0; i < 20; i++) {
      const path = rx.path(...Array.from({ length: 5 }, () => ({ hangMs: 60_000 })));
      hanging.push(path);
      await register(t, a.key, rx.url(path), ['CHARGE_PAID']);
    }
    const pathB = rx.path();
    await register(t, b.key, rx.url(pathB), ['CHARGE_PAID']);
    // 100 deliveries that each hang for the whole timeout: twice the fast lane's slots.
    for (let i = 0; i < 5; i++) await emit(t, a.id, 'CHARGE_PAID', { id: `chg_a${i}` });
    const arrivedA = () => hanging.reduce((n, p) => n + rx.hitsFor(p).length, 0);
    await eventually(() => arrivedA() >= 20);
    await emit(t, b.id, 'CHARGE_PAID', { id: 'chg_b' });
    await eventually(() => rx.hitsFor(pathB).length === 1, TIMEOUT);
    // B was delivered while every attempt of A still hung (none recorded yet).
    const recordedA = (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE merchant_id = $1', [a.id])).rows[0]!.n;
    expect(recordedA).toBe(0);
    // A's excess waits on its pairs for the slow lane, not as jobs: its share of fast slots plus one attempt
    // per endpoint's drain at most, and one drain per endpoint.
    expect(arrivedA()).toBeLessThanOrEqual(20 + 20);
    // Its 20 attempts in flight hold their jobs; the rest move to the slow lane as fast workers pick them.
    await eventually(async () => (await jobs('webhooks.deliver', a.id)) <= 20);
    const waitingA = (await t.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM event_endpoints WHERE merchant_id = $1 AND due_at IS NOT NULL', [a.id])).rows[0]!.n;
    expect(waitingA).toBeGreaterThan(100 - 40);
    const drains = await jobs('webhooks.drain', a.id);
    expect(drains).toBeGreaterThan(0);
    expect(drains).toBeLessThanOrEqual(20);
  });

  it('a merchant\'s endpoints that answer fast take burst slots beyond its share instead of the slow lane', async () => {
    const m = await t.merchant();
    // Every attempt here answers in 150 ms, well within a tenth of the timeout: the endpoints are fast.
    const paths = Array.from({ length: 20 }, () => rx.path(...Array.from({ length: 4 }, () => ({ hangMs: 150 }))));
    for (const path of paths) await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const recorded = async () => (await t.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE merchant_id = $1 AND success', [m.id])).rows[0]!.n;
    await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_first' });
    await eventually(async () => (await recorded()) === 20, TIMEOUT);
    await t.pool.query(`
      CREATE TABLE spills (merchant_id text);
      CREATE FUNCTION log_spill() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO spills VALUES (NEW.merchant_id); RETURN NULL; END $$;
      CREATE TRIGGER log_spill AFTER UPDATE OF slow_lane ON event_endpoints FOR EACH ROW WHEN (NEW.slow_lane AND NOT OLD.slow_lane)
        EXECUTE FUNCTION log_spill();`);
    // 60 deliveries at once: three times its share of the shared slots.
    for (let i = 0; i < 3; i++) await emit(t, m.id, 'CHARGE_PAID', { id: `chg_burst${i}` });
    await eventually(async () => (await recorded()) === 80, TIMEOUT);
    const spilled = (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM spills WHERE merchant_id = $1', [m.id])).rows[0]!.n;
    expect(spilled).toBe(0);
  });
});
