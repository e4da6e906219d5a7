import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/index.js';
import { deliver } from '../../src/webhooks/webhook.tasks.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from './support/receiver.js';
import { deliveriesOf, emit, pendingJobs, register, sleep } from './support/helpers.js';

const BASE = 50;
const TIMEOUT = 300;
let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ WEBHOOK_RETRY_BASE_MS: String(BASE), WEBHOOK_TIMEOUT_MS: String(TIMEOUT) });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

const DELIVERY_KEYS = ['attempt', 'createdAt', 'durationMs', 'error', 'event', 'eventId', 'id', 'manual', 'statusCode', 'success'];
const charge = (id: string) => ({ id, amount: 1500, status: 'PAID', paidAt: '2026-11-22T18:00:00.000Z' });

/** Recomputes the signature from the raw bytes, independently of src/webhooks/signature.crypto.ts. */
function expectSigned(raw: Buffer, header: string | string[] | undefined, secret: string) {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  expect(m, `Service-Signature: ${String(header)}`).not.toBeNull();
  const t = Number(m![1]);
  expect(Math.abs(Math.floor(Date.now() / 1000) - t)).toBeLessThanOrEqual(5);
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`), raw])).digest('hex');
  expect(m![2]).toBe(expected);
}

describe('delivery', () => {
  it('POSTs the event, signed over the raw bytes with the secret returned at creation, and records it', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const data = { id: 'chg_1', status: 'PAID', amount: 1500, customer: { name: 'Ana', email: null }, split: [] };
    const eventId = await emit(t, m.id, 'CHARGE_PAID', data);
    await eventually(() => rx.hitsFor(path).length === 1);
    const hit = rx.hitsFor(path)[0];

    expect(hit!.method).toBe('POST');
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['service-event-id']).toBe(eventId);
    expectSigned(hit!.raw, hit!.headers['service-signature'], e.secret);
    const header = String(hit!.headers['service-signature']);
    expect(verifySignature({ payload: hit!.raw, header, secret: e.secret })).toBe(true);
    expect(verifySignature({ payload: hit!.raw, header, secret: `${e.secret}x` })).toBe(false);
    expect(verifySignature({ payload: Buffer.concat([hit!.raw, Buffer.from(' ')]), header, secret: e.secret })).toBe(false);

    const text = hit!.raw.toString('utf8');
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['id', 'event', 'createdAt', 'data']);
    expect(body).toEqual({ id: eventId, event: 'CHARGE_PAID', createdAt: body.createdAt, data });
    expect(body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // `data` keeps the key order it was emitted with.
    expect(text).toContain(JSON.stringify(data));

    const [record] = await deliveriesOf(t, m.key, e.id, 1);
    expect(Object.keys(record).sort()).toEqual(DELIVERY_KEYS);
    expect(record).toMatchObject({ eventId, event: 'CHARGE_PAID', attempt: 1, statusCode: 200, success: true, error: null });
    expect(record.id).toMatch(/^dlv_/);
    expect(Number.isInteger(record.durationMs) && record.durationMs >= 0).toBe(true);
    expect(await pendingJobs(t, eventId)).toBe(0);
  });

  it('retries 500, 500, 200 with the same bytes, each attempt signed afresh, waiting base × 4^(n−1)', async () => {
    const m = await t.merchant();
    const path = rx.path(500, 500);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', charge('chg_retry'));
    const records = await deliveriesOf(t, m.key, e.id, 3);
    expect(records.map((r) => [r.attempt, r.statusCode, r.success, r.error])).toEqual([
      [3, 200, true, null], [2, 500, false, 'http 500'], [1, 500, false, 'http 500'],
    ]);
    expect(records.every((r) => r.eventId === eventId && r.event === 'CHARGE_PAID')).toBe(true);

    const hits = rx.hitsFor(path);
    expect(hits).toHaveLength(3);
    for (const h of hits) {
      expect(h.raw.equals(hits[0]!.raw)).toBe(true);
      expect(h.headers['service-event-id']).toBe(eventId);
      expectSigned(h.raw, h.headers['service-signature'], e.secret);
    }
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(BASE - 5);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(BASE * 4 - 5);
    expect(await pendingJobs(t, eventId)).toBe(0);
  });

  it('makes exactly 3 attempts when the receiver keeps failing', async () => {
    const m = await t.merchant();
    const path = rx.path(500, 503, 500, 200);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', charge('chg_500'));
    const records = await deliveriesOf(t, m.key, e.id, 3);
    expect(records.map((r) => [r.attempt, r.statusCode, r.success])).toEqual([[3, 500, false], [2, 503, false], [1, 500, false]]);
    // A 4th attempt would come BASE × 16 ms after the 3rd: wait well past it.
    await sleep(BASE * 16 + 1000);
    expect(rx.hitsFor(path)).toHaveLength(3);
    expect((await deliveriesOf(t, m.key, e.id, 3)).length).toBe(3);
    expect(await pendingJobs(t, eventId)).toBe(0);
  });

  it('records a 4xx once and never retries it', async () => {
    const m = await t.merchant();
    const path = rx.path(400);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', charge('chg_400'));
    const [record] = await deliveriesOf(t, m.key, e.id, 1);
    expect(record).toMatchObject({ attempt: 1, statusCode: 400, success: false, error: 'http 400' });
    await sleep(BASE * 4 + 800);
    expect(rx.hitsFor(path)).toHaveLength(1);
    expect(await deliveriesOf(t, m.key, e.id, 1)).toHaveLength(1);
    expect(await pendingJobs(t, eventId)).toBe(0);
  });

  it('retries a timeout', async () => {
    const m = await t.merchant();
    const path = rx.path({ hangMs: TIMEOUT * 4 });
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    await emit(t, m.id, 'CHARGE_PAID', charge('chg_slow'));
    const records = await deliveriesOf(t, m.key, e.id, 2);
    expect(records.map((r) => [r.attempt, r.statusCode, r.success, r.error])).toEqual([
      [2, 200, true, null], [1, null, false, `timeout after ${TIMEOUT} ms`],
    ]);
    expect(records[1].durationMs).toBeGreaterThanOrEqual(TIMEOUT - 5);
  });

  it('retries a 3xx and never follows it', async () => {
    const m = await t.merchant();
    const target = rx.path();
    const path = rx.path({ redirect: target }, { redirect: target });
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    await emit(t, m.id, 'CHARGE_PAID', charge('chg_3xx'));
    const records = await deliveriesOf(t, m.key, e.id, 3);
    expect(records.map((r) => [r.attempt, r.statusCode, r.success, r.error])).toEqual([
      [3, 200, true, null], [2, 302, false, 'redirect not followed (302)'], [1, 302, false, 'redirect not followed (302)'],
    ]);
    expect(rx.hitsFor(target)).toHaveLength(0);
  });

  it('runs deliveries concurrently: receivers that hang do not hold up another', async () => {
    const m = await t.merchant();
    const slow = [rx.path({ hangMs: TIMEOUT * 4 }), rx.path({ hangMs: TIMEOUT * 4 }), rx.path({ hangMs: TIMEOUT * 4 })];
    for (const p of slow) await register(t, m.key, rx.url(p), ['CHARGE_PAID']);
    const fast = rx.path();
    const f = await register(t, m.key, rx.url(fast), ['CHARGE_PAID']);
    await emit(t, m.id, 'CHARGE_PAID', charge('chg_conc'));
    // One at a time, the first attempts would start at least TIMEOUT ms apart.
    const startOf = (p: string) => rx.hitsFor(p)[0]?.at;
    await eventually(() => [...slow, fast].every((p) => startOf(p) !== undefined));
    const first = [...slow, fast].map((p) => startOf(p)!);
    expect(Math.max(...first) - Math.min(...first)).toBeLessThan(TIMEOUT);
    await deliveriesOf(t, m.key, f.id, 1);
  });

  it('is safe to run twice: a recorded attempt is not sent again', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', charge('chg_twice'));
    await deliveriesOf(t, m.key, e.id, 1);
    await deliver(t.rt, { eventId, endpointId: e.id, attempt: 1 });
    await Promise.all([1, 2, 3].map(() => deliver(t.rt, { eventId, endpointId: e.id, attempt: 1 })));
    expect(rx.hitsFor(path)).toHaveLength(1);
    expect(await deliveriesOf(t, m.key, e.id, 1)).toHaveLength(1);
  });
});

describe('fan-out', () => {
  it('reaches only the endpoints subscribed to the event type, of the emitting merchant', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const [pa, pb, pc, po] = [rx.path(), rx.path(), rx.path(), rx.path()];
    const a = await register(t, m.key, rx.url(pa), ['CHARGE_PAID']);
    const b = await register(t, m.key, rx.url(pb), ['REFUND_COMPLETED']);
    const c = await register(t, m.key, rx.url(pc), ['CHARGE_PAID', 'REFUND_COMPLETED']);
    await register(t, other.key, rx.url(po), ['CHARGE_PAID', 'REFUND_COMPLETED']);

    const paid = await emit(t, m.id, 'CHARGE_PAID', charge('chg_fan'));
    await deliveriesOf(t, m.key, a.id, 1);
    await deliveriesOf(t, m.key, c.id, 1);
    const refunded = await emit(t, m.id, 'REFUND_COMPLETED', charge('chg_fan'));
    await deliveriesOf(t, m.key, b.id, 1);
    const cRecords = await deliveriesOf(t, m.key, c.id, 2);
    expect(cRecords.map((r) => r.eventId).sort()).toEqual([paid, refunded].sort());
    await sleep(300);
    expect(rx.hitsFor(pa).map((h) => h.headers['service-event-id'])).toEqual([paid]);
    expect(rx.hitsFor(pb).map((h) => h.headers['service-event-id'])).toEqual([refunded]);
    expect(rx.hitsFor(pc)).toHaveLength(2);
    expect(rx.hitsFor(po)).toHaveLength(0);
    // An event nobody subscribes to is recorded but delivered nowhere.
    const expired = await emit(t, m.id, 'CHARGE_EXPIRED', charge('chg_fan'));
    expect(await pendingJobs(t, expired)).toBe(0);
  });

  it('sends SPLIT_RECEIVED to the recipient merchant\'s endpoints', async () => {
    const payer = await t.merchant();
    const recipient = await t.merchant();
    const [pp, pr] = [rx.path(), rx.path()];
    await register(t, payer.key, rx.url(pp), ['SPLIT_RECEIVED']);
    const r = await register(t, recipient.key, rx.url(pr), ['SPLIT_RECEIVED']);
    const data = { chargeId: 'chg_split', merchantId: payer.id, amount: 300, paidAt: '2026-11-22T18:00:00.000Z' };
    await emit(t, recipient.id, 'SPLIT_RECEIVED', data);
    await deliveriesOf(t, recipient.key, r.id, 1);
    expect(JSON.parse(rx.hitsFor(pr)[0]!.raw.toString()).data).toEqual(data);
    await sleep(200);
    expect(rx.hitsFor(pp)).toHaveLength(0);
  });

  it('a split payment fans out CHARGE_PAID to the merchant and SPLIT_RECEIVED to each recipient, from one payment', async () => {
    const payer = await t.merchant();
    const [r1, r2] = [await t.merchant(), await t.merchant()];
    const [pp, p1, p2] = [rx.path(), rx.path(), rx.path()];
    const hp = await register(t, payer.key, rx.url(pp), ['CHARGE_PAID', 'SPLIT_RECEIVED']);
    const h1 = await register(t, r1.key, rx.url(p1), ['SPLIT_RECEIVED']);
    const h2 = await register(t, r2.key, rx.url(p2), ['CHARGE_PAID', 'SPLIT_RECEIVED']);
    const split = [{ merchantId: r1.id, mode: 'FIXED', value: 300 }, { merchantId: r2.id, mode: 'PERCENT', value: 10 }];
    const c = (await t.request('POST', '/transparents/create', { key: payer.key, body: { method: 'PIX', amount: 2000, split } })).body.data;
    expect((await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`)).status).toBe(200);
    const events = async (key: string, id: string) => (await deliveriesOf(t, key, id, 1)).map((d: { event: string }) => d.event);
    expect(await events(payer.key, hp.id)).toEqual(['CHARGE_PAID']);
    expect(await events(r1.key, h1.id)).toEqual(['SPLIT_RECEIVED']);
    expect(await events(r2.key, h2.id)).toEqual(['SPLIT_RECEIVED']);
    expect(JSON.parse(rx.hitsFor(p1)[0]!.raw.toString()).data).toMatchObject({ chargeId: c.id, merchantId: payer.id, amount: 300 });
    expect(JSON.parse(rx.hitsFor(p2)[0]!.raw.toString()).data).toMatchObject({ chargeId: c.id, merchantId: payer.id, amount: 200 });
  });
});

describe('delivery history', () => {
  it('lists records newest first, pages them, and binds cursors to the endpoint', async () => {
    const m = await t.merchant();
    const a = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const b = await register(t, m.key, rx.url(rx.path()), ['REFUND_FAILED']);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await emit(t, m.id, 'CHARGE_PAID', charge(`chg_page_${i}`)));
    const all = await deliveriesOf(t, m.key, a.id, 5);
    expect(all.map((r) => r.eventId).sort()).toEqual([...ids].sort());
    for (let i = 1; i < all.length; i++) {
      const [prev, cur] = [all[i - 1], all[i]];
      expect(prev.createdAt > cur.createdAt || (prev.createdAt === cur.createdAt && prev.id > cur.id)).toBe(true);
    }

    const get = (qs: string, id = a.id) => t.request('GET', `/webhooks/${id}/deliveries?${qs}`, { key: m.key });
    const p1 = await get('limit=2');
    expect(p1.status).toBe(200);
    expect(p1.body.data).toEqual(all.slice(0, 2));
    expect(p1.body.pagination.hasMore).toBe(true);
    expect(p1.body.pagination.before).toBeNull();
    const p2 = await get(`limit=2&after=${p1.body.pagination.next}`);
    expect(p2.body.data).toEqual(all.slice(2, 4));
    const p3 = await get(`limit=2&after=${p2.body.pagination.next}`);
    expect(p3.body.data).toEqual(all.slice(4));
    expect(p3.body.pagination).toMatchObject({ hasMore: false, next: null });
    const back = await get(`limit=2&before=${p2.body.pagination.before}`);
    expect(back.body.data).toEqual(p1.body.data);

    const elsewhere = await get(`limit=2&after=${p1.body.pagination.next}`, b.id);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toEqual({ error: 'VALIDATION_ERROR', message: 'after: invalid cursor', success: false });
    expect((await get('', b.id)).body).toEqual({ data: [], pagination: { hasMore: false, next: null, before: null }, error: null, success: true });
  });
});

describe('DELETE stops deliveries', () => {
  it('drops an attempt in flight, the retries still queued, and every later event', async () => {
    const m = await t.merchant();
    // The receiver holds the first attempt open; the endpoint is deleted meanwhile.
    const path = rx.path({ hangMs: TIMEOUT - 50, status: 500 }, 500);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', charge('chg_del'));
    await eventually(() => rx.hitsFor(path).length === 1);
    expect((await t.request('DELETE', `/webhooks/${e.id}`, { key: m.key })).status).toBe(200);
    await emit(t, m.id, 'CHARGE_PAID', charge('chg_del_2'));
    // A retry job that was already queued finds no endpoint and sends nothing.
    await deliver(t.rt, { eventId, endpointId: e.id, attempt: 2 });
    await sleep(BASE * 4 + 800);
    expect(rx.hitsFor(path)).toHaveLength(1);
    expect(await pendingJobs(t, eventId)).toBe(0);
    expect((await t.request('GET', `/webhooks/${e.id}/deliveries`, { key: m.key })).status).toBe(404);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [e.id]);
    expect(rows[0].n).toBe(0);
  });

  it('records nothing for a successful attempt whose endpoint was deleted while it ran, and does not fail', async () => {
    const m = await t.merchant();
    const path = rx.path({ hangMs: TIMEOUT - 50, status: 200 });
    // Subscribed to another type: no job of its own, the attempt below is the only one.
    const e = await register(t, m.key, rx.url(path), ['CHARGE_EXPIRED']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', charge('chg_del_ok'));
    // As if the event had gone to it (a redeliver may send any event that did).
    await t.pool.query(
      `INSERT INTO event_endpoints (event_id, endpoint_id, merchant_id, event_created_at) SELECT id, $2, merchant_id, created_at FROM events WHERE id = $1`,
      [eventId, e.id],
    );
    const attempt = deliver(t.rt, { eventId, endpointId: e.id, attempt: 1 });
    await eventually(() => rx.hitsFor(path).length === 1);
    expect((await t.request('DELETE', `/webhooks/${e.id}`, { key: m.key })).status).toBe(200);
    // A task that threw would be retried by the queue: it must end quietly.
    await expect(attempt).resolves.toBeUndefined();
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [e.id]);
    expect(rows[0].n).toBe(0);
  });
});
