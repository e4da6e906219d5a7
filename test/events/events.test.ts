import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from '../webhooks/support/receiver.js';
import { deliveriesOf, emit, register } from '../webhooks/support/helpers.js';

// A long retry base: a retried delivery stays PENDING for the whole file.
let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ WEBHOOK_RETRY_BASE_MS: '600000', WEBHOOK_TIMEOUT_MS: '2000' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

const EVENT_KEYS = ['createdAt', 'data', 'deliveries', 'id', 'type'];
const events = async (key: string, query = '') => {
  const res = await t.request('GET', `/events${query}`, { key });
  if (res.status !== 200) throw new Error(`GET /events${query}: ${res.status} ${res.raw}`);
  return res.body;
};
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((e) => e.id);

describe('GET /events', () => {
  let m: { id: string; key: string };
  const id: Record<string, string> = {};
  let pathOk = '';
  beforeAll(async () => {
    m = await t.merchant();
    pathOk = rx.path();
    // ok answers 200; refuses answers 400 (final at once); flaky answers 500 (retried much later: pending).
    await register(t, m.key, rx.url(pathOk), ['CHARGE_PAID', 'CHARGE_EXPIRED']);
    await register(t, m.key, rx.url(rx.path(400)), ['CHARGE_EXPIRED']);
    await register(t, m.key, rx.url(rx.path(500)), ['REFUND_COMPLETED']);
    id.none = await emit(t, m.id, 'CHARGE_CREATED', { id: 'chg_none', amount: 100 });
    id.ok = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_ok', status: 'PAID', amount: 1500, customer: { name: 'Ana', email: null } });
    id.failed = await emit(t, m.id, 'CHARGE_EXPIRED', { id: 'chg_failed' });
    id.pending = await emit(t, m.id, 'REFUND_COMPLETED', { id: 'chg_pending' });
    await eventually(async () => {
      const all = (await events(m.key)).data as Array<{ id: string; deliveries: Record<string, number> }>;
      const of = (x: string) => all.find((e) => e.id === x)!.deliveries;
      expect(of(id.ok!)).toEqual({ pending: 0, succeeded: 1, failed: 0 });
      expect(of(id.failed!)).toEqual({ pending: 0, succeeded: 1, failed: 1 });
      expect(of(id.pending!)).toEqual({ pending: 1, succeeded: 0, failed: 0 });
      return true;
    }, 10_000);
  });

  it('lists every event of the merchant newest first, also one that went to no endpoint', async () => {
    const body = await events(m.key);
    expect(ids(body)).toEqual([id.pending, id.failed, id.ok, id.none]);
    expect(Object.keys(body.data[0]).sort()).toEqual(EVENT_KEYS);
    expect(body.data[3]).toMatchObject({ type: 'CHARGE_CREATED', deliveries: { pending: 0, succeeded: 0, failed: 0 } });
    expect(body.pagination).toEqual({ hasMore: false, next: null, before: null });
    expect(ids(await events((await t.merchant()).key))).toEqual([]);
  });

  it('shows as data exactly the payload that was signed and sent, key order included', async () => {
    const hit = rx.hitsFor(pathOk).find((h) => JSON.parse(h.raw.toString()).id === id.ok)!;
    const sent = JSON.parse(hit.raw.toString());
    const shown = (await events(m.key, '?type=CHARGE_PAID')).data[0];
    expect(JSON.stringify(shown.data)).toBe(JSON.stringify(sent.data));
    expect(shown.createdAt).toBe(sent.createdAt);
    expect(shown.id).toBe(sent.id);
  });

  it('filters by deliveryStatus: FAILED if some delivery ended without a 2xx, PENDING if some has attempts to come, SUCCEEDED if all got a 2xx', async () => {
    expect(ids(await events(m.key, '?deliveryStatus=FAILED'))).toEqual([id.failed]);
    expect(ids(await events(m.key, '?deliveryStatus=PENDING'))).toEqual([id.pending]);
    expect(ids(await events(m.key, '?deliveryStatus=SUCCEEDED'))).toEqual([id.ok]);
    expect(ids(await events(m.key, '?type=CHARGE_EXPIRED&deliveryStatus=FAILED'))).toEqual([id.failed]);
    expect(ids(await events(m.key, '?type=CHARGE_PAID&deliveryStatus=FAILED'))).toEqual([]);
  });

  it('pages with cursors bound to the filters', async () => {
    const first = await events(m.key, '?limit=2');
    expect(ids(first)).toEqual([id.pending, id.failed]);
    expect(first.pagination.hasMore).toBe(true);
    const second = await events(m.key, `?limit=2&after=${first.pagination.next}`);
    expect(ids(second)).toEqual([id.ok, id.none]);
    expect(second.pagination.hasMore).toBe(false);
    const back = await events(m.key, `?limit=2&before=${second.pagination.before}`);
    expect(ids(back)).toEqual(ids(first));
    const other = await t.request('GET', `/events?limit=2&type=CHARGE_PAID&after=${first.pagination.next}`, { key: m.key });
    expect(other.body).toMatchObject({ error: 'VALIDATION_ERROR', message: 'after: invalid cursor' });
  });

  it('refuses unknown filter values, naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['?type=NOPE', /^type: must be one of CHARGE_CREATED, .*WEBHOOK_TEST$/],
      ['?deliveryStatus=DONE', /^deliveryStatus: must be one of PENDING, SUCCEEDED, FAILED$/],
      ['?limit=0', /^limit: must be >= 1$/],
      ['?limit=101', /^limit: must be <= 100$/],
    ];
    for (const [q, message] of cases) {
      const res = await t.request('GET', `/events${q}`, { key: m.key });
      expect(res.status, q).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(message);
    }
  });
});

describe('GET /events/{id}', () => {
  it('adds the attempts: the delivery records of the event, to every endpoint', async () => {
    const m = await t.merchant();
    const a = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const b = await register(t, m.key, rx.url(rx.path(410)), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_att' });
    await deliveriesOf(t, m.key, a.id, 1);
    await deliveriesOf(t, m.key, b.id, 1);
    const res = await t.request('GET', `/events/${eventId}`, { key: m.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([...EVENT_KEYS, 'attempts'].sort());
    expect(res.body.data).toMatchObject({ id: eventId, type: 'CHARGE_PAID', data: { id: 'chg_att' }, deliveries: { pending: 0, succeeded: 1, failed: 1 } });
    const attempts = res.body.data.attempts as Array<Record<string, unknown>>;
    expect(attempts.map((x) => [x.eventId, x.statusCode, x.success, x.attempt, x.manual]).sort()).toEqual([
      [eventId, 200, true, 1, false], [eventId, 410, false, 1, false],
    ].sort());
    // The same records as each endpoint's history shows.
    const history = [...(await deliveriesOf(t, m.key, a.id, 1)), ...(await deliveriesOf(t, m.key, b.id, 1))];
    expect([...attempts].sort((x, y) => String(x.id).localeCompare(String(y.id)))).toEqual(history.sort((x, y) => x.id.localeCompare(y.id)));
  });

  it('counts only endpoints that still exist: deleting one takes its delivery out of the counts', async () => {
    const m = await t.merchant();
    const a = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const b = await register(t, m.key, rx.url(rx.path(500)), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_del' });
    const counts = async () => (await t.request('GET', `/events/${eventId}`, { key: m.key })).body.data.deliveries;
    await eventually(async () => JSON.stringify(await counts()) === JSON.stringify({ pending: 1, succeeded: 1, failed: 0 }));
    expect((await t.request('DELETE', `/webhooks/${b.id}`, { key: m.key })).status).toBe(200);
    expect(await counts()).toEqual({ pending: 0, succeeded: 1, failed: 0 });
    expect((await events(m.key, '?deliveryStatus=SUCCEEDED')).data.map((e: { id: string }) => e.id)).toEqual([eventId]);
    expect((await t.request('DELETE', `/webhooks/${a.id}`, { key: m.key })).status).toBe(200);
    expect(await counts()).toEqual({ pending: 0, succeeded: 0, failed: 0 });
    expect((await events(m.key, '?deliveryStatus=SUCCEEDED')).data).toEqual([]);
  });

  it('is 404 for an unknown id and for another merchant\'s event', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const eventId = await emit(t, other.id, 'CHARGE_PAID', { id: 'chg_x' });
    for (const path of ['/events/evt_nope', `/events/${eventId}`]) {
      const res = await t.request('GET', path, { key: m.key });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'NOT_FOUND', success: false });
    }
  });
});

describe('SPLIT_RECEIVED', () => {
  it('belongs to the recipient: listed in its events, not in the charging merchant\'s', async () => {
    const payer = await t.merchant();
    const recipient = await t.merchant();
    const split = [{ merchantId: recipient.id, mode: 'FIXED', value: 300 }];
    const c = (await t.request('POST', '/transparents/create', { key: payer.key, body: { method: 'PIX', amount: 2000, split } })).body.data;
    expect((await t.admin('POST', `/admin/simulator/charges/${c.id}/pay`)).status).toBe(200);
    const mine = await events(recipient.key);
    expect(mine.data.map((e: { type: string }) => e.type)).toEqual(['SPLIT_RECEIVED']);
    expect(mine.data[0].data).toMatchObject({ chargeId: c.id, merchantId: payer.id, amount: 300 });
    const theirs = (await events(payer.key)).data.map((e: { type: string }) => e.type);
    expect(theirs).toContain('CHARGE_PAID');
    expect(theirs).not.toContain('SPLIT_RECEIVED');
    expect(ids(await events(recipient.key, '?type=SPLIT_RECEIVED'))).toEqual([mine.data[0].id]);
  });
});

describe('events of one transaction', () => {
  // docs/contract/webhooks.md#events-api: they share createdAt and list in the order they were recorded
  // (newest first: the later one first), every time — not by the luck of their random ids.
  it('list in causal order: CHECKOUT_PAID before the CHARGE_PAID it follows, for every checkout paid', async () => {
    const m = await t.merchant();
    const charges: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.request('POST', '/checkouts', { key: m.key, body: { items: [{ name: 'Item', quantity: 1, unitPrice: 1000 + i }] } });
      expect(res.status).toBe(201);
      charges.push(res.body.data.chargeId);
    }
    for (const id of charges) expect((await t.admin('POST', `/admin/simulator/charges/${id}/pay`)).status).toBe(200);
    const listed = (await events(m.key, '?limit=100')).data.filter((e: any) => e.type === 'CHARGE_PAID' || e.type === 'CHECKOUT_PAID');
    expect(listed).toHaveLength(24);
    for (let i = 0; i < listed.length; i += 2) {
      expect([listed[i].type, listed[i + 1].type]).toEqual(['CHECKOUT_PAID', 'CHARGE_PAID']);
      expect(listed[i].data.chargeId).toBe(listed[i + 1].data.id);
      expect(listed[i].createdAt).toBe(listed[i + 1].createdAt);
    }
  });
});
