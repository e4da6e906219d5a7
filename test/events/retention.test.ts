import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from '../webhooks/support/receiver.js';
import { deliveriesOf, emit, register } from '../webhooks/support/helpers.js';

let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ EVENT_RETENTION_DAYS: '2', WEBHOOK_RETRY_BASE_MS: '50' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

/** Moves events (and their per-endpoint rows) back in time, as if they had been recorded `days` ago. */
async function age(eventIds: string[], days: number): Promise<void> {
  await t.pool.query(`UPDATE events SET created_at = created_at - make_interval(days => $2) WHERE id = ANY($1)`, [eventIds, days]);
  await t.pool.query(`UPDATE event_endpoints SET event_created_at = event_created_at - make_interval(days => $2) WHERE event_id = ANY($1)`, [eventIds, days]);
}

const count = async (sql: string, params: unknown[]) => (await t.pool.query<{ n: number }>(sql, params)).rows[0]!.n;

describe('EVENT_RETENTION_DAYS', () => {
  it('keeps redeliver and recover from reaching past it', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path(400, 400)), ['CHARGE_PAID']);
    const old = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_old' });
    const recent = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_recent' });
    await deliveriesOf(t, m.key, e.id, 2);
    await eventually(async () => (await t.request('GET', '/events?deliveryStatus=FAILED', { key: m.key })).body.data.length === 2);
    await age([old], 3);
    const redeliver = await t.request('POST', `/webhooks/${e.id}/redeliver`, { key: m.key, body: { eventId: old } });
    expect(redeliver.body).toMatchObject({ error: 'VALIDATION_ERROR', message: 'eventId: not delivered to this endpoint' });
    const recover = await t.request('POST', `/webhooks/${e.id}/recover`, { key: m.key, body: { since: new Date(0).toISOString() } });
    expect(recover.body.data).toEqual({ queued: 1 });
    expect((await deliveriesOf(t, m.key, e.id, 3))[0]).toMatchObject({ eventId: recent, manual: true });
  });

  it('a background job deletes older events with their delivery records, in batches, and keeps the rest', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const delivered = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_gone' });
    const kept = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_kept' });
    await deliveriesOf(t, m.key, e.id, 2);
    await age([delivered], 3);
    // More old events than one batch deletes.
    await t.pool.query(
      `INSERT INTO events (id, merchant_id, type, data, body, created_at)
       SELECT 'evt_old_' || i, $1, 'CHARGE_EXPIRED', '{}', '{}', now() - interval '10 days' - make_interval(secs => i) FROM generate_series(1, 1234) i`,
      [m.id],
    );
    // Not yet old enough: 2 days less a minute.
    await t.pool.query(`INSERT INTO events (id, merchant_id, type, data, body, created_at) VALUES ('evt_edge', $1, 'CHARGE_EXPIRED', '{}', '{"data":{}}', now() - interval '2 days' + interval '1 minute')`, [m.id]);

    await t.pool.query(`SELECT graphile_worker.add_job('events.prune', '{}', job_key => 'events.prune')`);
    await eventually(async () => (await count('SELECT count(*)::int AS n FROM events WHERE merchant_id = $1', [m.id])) === 2, 15_000);
    const left = (await t.request('GET', '/events?limit=100', { key: m.key })).body.data.map((x: { id: string }) => x.id);
    expect(left).toEqual([kept, 'evt_edge']);
    expect((await t.request('GET', `/events/${delivered}`, { key: m.key })).status).toBe(404);
    expect(await count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1', [delivered])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM event_endpoints WHERE event_id = $1', [delivered])).toBe(0);
    expect((await deliveriesOf(t, m.key, e.id, 1))[0].eventId).toBe(kept);
    // The sweep scheduled its next run, an hour on.
    const { rows } = await t.pool.query(`SELECT run_at FROM graphile_worker.jobs WHERE key = 'events.prune'`);
    expect(rows).toHaveLength(1);
    expect(Math.abs(rows[0].run_at.getTime() - Date.now() - 3_600_000)).toBeLessThan(60_000);
  });
});
