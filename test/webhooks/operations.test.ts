import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver, type Hit } from './support/receiver.js';
import { deliveriesOf, emit, register, sleep } from './support/helpers.js';

const BASE = 50;
let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ WEBHOOK_RETRY_BASE_MS: String(BASE), WEBHOOK_TIMEOUT_MS: '2000' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

// Stripe's own verifier: the header is Stripe's form, `t=<t>,v1=<hex>[,v1=<hex>]`.
const stripe = new Stripe('sk_test_x');
const stripeAccepts = (hit: Hit, secret: string): boolean => {
  try {
    stripe.webhooks.signature!.verifyHeader(hit.raw.toString('utf8'), String(hit.headers['service-signature']), secret);
    return true;
  } catch {
    return false;
  }
};
const v1Count = (hit: Hit) => String(hit.headers['service-signature']).split(',').filter((p) => p.startsWith('v1=')).length;
const post = (key: string, path: string, body?: unknown, headers?: Record<string, string>) => t.request('POST', path, { key, body, headers });
const expectError = (res: { status: number; body: any }, status: number, code: string, message?: string | RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(code);
  if (message !== undefined) expect(res.body.message).toMatch(message);
};

describe('POST /webhooks/{id}/test', () => {
  it('sends a signed WEBHOOK_TEST now, whatever the endpoint subscribes to, and answers its delivery record', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const e = await register(t, m.key, rx.url(path), ['WITHDRAWAL_FAILED']);
    const res = await post(m.key, `/webhooks/${e.id}/test`);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ event: 'WEBHOOK_TEST', attempt: 1, statusCode: 200, success: true, error: null, manual: true });
    const [hit] = rx.hitsFor(path);
    const sent = JSON.parse(hit!.raw.toString());
    expect(Object.keys(sent)).toEqual(['id', 'event', 'createdAt', 'data']);
    expect(sent).toMatchObject({ id: d.eventId, event: 'WEBHOOK_TEST', data: { webhookId: e.id } });
    expect(hit!.headers['service-event-id']).toBe(d.eventId);
    expect(stripeAccepts(hit!, e.secret)).toBe(true);
    // Listed in /events, and in the endpoint's history.
    const ev = await t.request('GET', `/events/${d.eventId}`, { key: m.key });
    expect(ev.body.data).toMatchObject({ type: 'WEBHOOK_TEST', data: { webhookId: e.id }, deliveries: { pending: 0, succeeded: 1, failed: 0 } });
    expect(ev.body.data.attempts).toEqual([d]);
    expect((await t.request('GET', '/events?type=WEBHOOK_TEST', { key: m.key })).body.data.map((x: any) => x.id)).toEqual([d.eventId]);
    expect((await deliveriesOf(t, m.key, e.id, 1))[0]).toEqual(d);
  });

  it('makes one attempt and never retries it', async () => {
    const m = await t.merchant();
    const path = rx.path(503, 503);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const res = await post(m.key, `/webhooks/${e.id}/test`);
    expect(res.body.data).toMatchObject({ statusCode: 503, success: false, error: 'http 503', attempt: 1 });
    await sleep(BASE * 8);
    expect(rx.hitsFor(path)).toHaveLength(1);
    const ev = await t.request('GET', `/events/${res.body.data.eventId}`, { key: m.key });
    expect(ev.body.data.deliveries).toEqual({ pending: 0, succeeded: 0, failed: 1 });
  });

  it('is not subscribable', async () => {
    const m = await t.merchant();
    expectError(await post(m.key, '/webhooks', { url: rx.url(rx.path()), events: ['WEBHOOK_TEST'] }), 400, 'VALIDATION_ERROR', /^events: /);
  });
});

describe('POST /webhooks/{id}/redeliver', () => {
  it('queues a new series of up to 3 attempts, manual, numbered from 1; the event then counts as that series ended', async () => {
    const m = await t.merchant();
    const path = rx.path(500, 500, 500, 500, 200);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_redeliver' });
    await deliveriesOf(t, m.key, e.id, 3);
    await eventually(async () => (await t.request('GET', `/events/${eventId}`, { key: m.key })).body.data.deliveries.failed === 1);
    expect((await t.request('GET', '/events?deliveryStatus=FAILED', { key: m.key })).body.data.map((x: any) => x.id)).toEqual([eventId]);

    const res = await post(m.key, `/webhooks/${e.id}/redeliver`, { eventId });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ webhookId: e.id, eventId, queued: true });
    const records = await deliveriesOf(t, m.key, e.id, 5);
    expect(records.map((r: any) => [r.attempt, r.manual, r.statusCode])).toEqual([
      [2, true, 200], [1, true, 500], [3, false, 500], [2, false, 500], [1, false, 500],
    ]);
    const bodies = rx.hitsFor(path).map((h) => h.raw.toString());
    expect(new Set(bodies).size).toBe(1);
    await eventually(async () => (await t.request('GET', `/events/${eventId}`, { key: m.key })).body.data.deliveries.succeeded === 1);
    expect((await t.request('GET', `/events/${eventId}`, { key: m.key })).body.data.deliveries).toEqual({ pending: 0, succeeded: 1, failed: 0 });
    expect((await t.request('GET', '/events?deliveryStatus=SUCCEEDED', { key: m.key })).body.data.map((x: any) => x.id)).toEqual([eventId]);
    expect((await t.request('GET', '/events?deliveryStatus=FAILED', { key: m.key })).body.data).toEqual([]);
  });

  it('refuses an event that never went to the endpoint, an unknown one and another merchant\'s', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const elsewhere = await emit(t, m.id, 'CHARGE_EXPIRED', { id: 'chg_x' });
    const foreign = await emit(t, other.id, 'CHARGE_PAID', { id: 'chg_y' });
    for (const eventId of [elsewhere, foreign, 'evt_unknown']) {
      expectError(await post(m.key, `/webhooks/${e.id}/redeliver`, { eventId }), 400, 'VALIDATION_ERROR', /^eventId: not delivered to this endpoint$/);
    }
    expectError(await post(m.key, `/webhooks/${e.id}/redeliver`, {}), 400, 'VALIDATION_ERROR', /^eventId: /);
    expectError(await post(m.key, `/webhooks/${e.id}/redeliver`, { eventId: 5 }), 400, 'VALIDATION_ERROR', /^eventId: /);
  });
});

describe('POST /webhooks/{id}/recover', () => {
  it('redelivers every event since `since` whose delivery FAILED and has not succeeded since', async () => {
    const m = await t.merchant();
    const path = rx.path(400, 400);
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const before = new Date().toISOString();
    const failed1 = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_r1' });
    await deliveriesOf(t, m.key, e.id, 1);
    const failed2 = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_r2' });
    await deliveriesOf(t, m.key, e.id, 2);
    await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_r3' });
    await deliveriesOf(t, m.key, e.id, 3);
    expect((await post(m.key, `/webhooks/${e.id}/recover`, { since: new Date(Date.now() + 60_000).toISOString() })).body.data).toEqual({ queued: 0 });
    const res = await post(m.key, `/webhooks/${e.id}/recover`, { since: before });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ queued: 2 });
    const records = await deliveriesOf(t, m.key, e.id, 5);
    expect(records.slice(0, 2).map((r: any) => [r.eventId, r.manual, r.attempt, r.success]).sort()).toEqual([
      [failed1, true, 1, true], [failed2, true, 1, true],
    ].sort());
    await eventually(async () => (await t.request('GET', '/events?deliveryStatus=FAILED', { key: m.key })).body.data.length === 0);
    expect((await post(m.key, `/webhooks/${e.id}/recover`, { since: before })).body.data).toEqual({ queued: 0 });
  });

  it('needs an ISO time', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    expectError(await post(m.key, `/webhooks/${e.id}/recover`, {}), 400, 'VALIDATION_ERROR', /^since: /);
    expectError(await post(m.key, `/webhooks/${e.id}/recover`, { since: 'yesterday' }), 400, 'VALIDATION_ERROR', /^since: /);
  });
});

describe('POST /webhooks/{id}/rotate-secret', () => {
  it('signs with both secrets until the old one expires: Stripe\'s verifier accepts either', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const started = Date.now();
    const res = await post(m.key, `/webhooks/${e.id}/rotate-secret`);
    expect(res.status).toBe(200);
    const { id, secret, previousSecretExpiresAt } = res.body.data;
    expect(Object.keys(res.body.data).sort()).toEqual(['id', 'previousSecretExpiresAt', 'secret']);
    expect(id).toBe(e.id);
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(secret).not.toBe(e.secret);
    // Default 86400 s.
    expect(Math.abs(Date.parse(previousSecretExpiresAt) - started - 86_400_000)).toBeLessThan(10_000);
    // Never shown again.
    expect(JSON.stringify((await t.request('GET', `/webhooks/${e.id}`, { key: m.key })).body)).not.toContain('whsec_');

    await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_rot' });
    const hit = (await eventually(() => rx.hitsFor(path)[0]))!;
    expect(String(hit.headers['service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(stripeAccepts(hit, secret)).toBe(true);
    expect(stripeAccepts(hit, e.secret)).toBe(true);
    expect(stripeAccepts(hit, 'whsec_someoneelse')).toBe(false);
    // The test ping is signed the same way.
    await post(m.key, `/webhooks/${e.id}/test`);
    expect(v1Count(rx.hitsFor(path)[1]!)).toBe(2);
  });

  it('keeps at most two secrets live, and with 0 stops the old one at once', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const e = await register(t, m.key, rx.url(path), ['WITHDRAWAL_FAILED']);
    const second = (await post(m.key, `/webhooks/${e.id}/rotate-secret`, { expiresInSeconds: 3600 })).body.data.secret;
    const third = (await post(m.key, `/webhooks/${e.id}/rotate-secret`, { expiresInSeconds: 3600 })).body.data.secret;
    await post(m.key, `/webhooks/${e.id}/test`);
    const overlap = rx.hitsFor(path)[0]!;
    expect(v1Count(overlap)).toBe(2);
    expect([third, second, e.secret].map((s) => stripeAccepts(overlap, s))).toEqual([true, true, false]);

    const now = (await post(m.key, `/webhooks/${e.id}/rotate-secret`, { expiresInSeconds: 0 })).body.data;
    expect(Math.abs(Date.parse(now.previousSecretExpiresAt) - Date.now())).toBeLessThan(5000);
    await post(m.key, `/webhooks/${e.id}/test`);
    const single = rx.hitsFor(path)[1]!;
    expect(v1Count(single)).toBe(1);
    expect([now.secret, third].map((s) => stripeAccepts(single, s))).toEqual([true, false]);
  });

  it('refuses an out-of-range expiresInSeconds, naming the field', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    for (const [value, message] of [[86401, /^expiresInSeconds: must be <= 86400$/], [-1, /^expiresInSeconds: must be >= 0$/], ['60', /^expiresInSeconds: /], [1.5, /^expiresInSeconds: /]] as const) {
      expectError(await post(m.key, `/webhooks/${e.id}/rotate-secret`, { expiresInSeconds: value }), 400, 'VALIDATION_ERROR', message);
    }
  });

  it('refuses a body that is not an object (a JSON null rotated the secret, found by the hostile fuzz); no body is fine', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const row = async () => (await t.pool.query('SELECT * FROM webhook_endpoints WHERE id = $1', [e.id])).rows[0];
    const before = await row();
    for (const payload of ['null', '[]', '"x"', '1']) {
      const res = await t.request('POST', `/webhooks/${e.id}/rotate-secret`, { key: m.key, payload, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'VALIDATION_ERROR', /^body: /);
    }
    expect(await row()).toEqual(before);
    const empty = await t.request('POST', `/webhooks/${e.id}/rotate-secret`, { key: m.key, payload: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    expect((await post(m.key, `/webhooks/${e.id}/rotate-secret`)).status).toBe(200);
  });
});

describe('every operation', () => {
  it('answers 404 for an unknown endpoint and for another merchant\'s', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const foreign = await register(t, other.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const eventId = await emit(t, other.id, 'CHARGE_PAID', { id: 'chg_404' });
    const bodies: Record<string, unknown> = { test: undefined, redeliver: { eventId }, recover: { since: new Date(0).toISOString() }, 'rotate-secret': {} };
    for (const id of ['whk_unknown', foreign.id]) {
      for (const [op, body] of Object.entries(bodies)) {
        expectError(await post(m.key, `/webhooks/${id}/${op}`, body), 404, 'NOT_FOUND');
      }
    }
  });

  it('honours an Idempotency-Key: the same answer again, nothing done twice', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const e = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const eventId = await emit(t, m.id, 'CHARGE_PAID', { id: 'chg_idem' });
    await deliveriesOf(t, m.key, e.id, 1);
    const twice = async (op: string, body?: unknown) => {
      const headers = { 'idempotency-key': `k-${op}` };
      const first = await post(m.key, `/webhooks/${e.id}/${op}`, body, headers);
      const again = await post(m.key, `/webhooks/${e.id}/${op}`, body, headers);
      expect(first.status, first.raw).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const conflict = await post(m.key, `/webhooks/${e.id}/${op}`, { other: true, ...(body as object) }, headers);
      expectError(conflict, 409, 'IDEMPOTENCY_CONFLICT');
      return first.body.data;
    };
    await twice('test');
    expect(rx.hitsFor(path)).toHaveLength(2); // the automatic delivery and one test
    await twice('redeliver', { eventId });
    await deliveriesOf(t, m.key, e.id, 3);
    await sleep(300);
    expect(rx.hitsFor(path)).toHaveLength(3);
    expect(await twice('recover', { since: new Date(0).toISOString() })).toEqual({ queued: 0 });
    const rotated = await twice('rotate-secret', { expiresInSeconds: 0 });
    // The replayed secret is the one in force; the stored answer never held it in clear.
    const { rows } = await t.pool.query(`SELECT body::text FROM idempotency_keys WHERE key = 'k-rotate-secret'`);
    expect(rows[0].body).not.toContain(rotated.secret);
    await post(m.key, `/webhooks/${e.id}/test`);
    expect(stripeAccepts(rx.hitsFor(path)[3]!, rotated.secret)).toBe(true);
  });

  it('needs the developer permission; reads do not', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, rx.url(rx.path()), ['CHARGE_PAID']);
    const viewer = await t.user(m.id, 'VIEWER');
    const developer = await t.user(m.id, 'DEVELOPER');
    for (const [op, body] of [['test', undefined], ['redeliver', { eventId: 'evt_x' }], ['recover', { since: new Date().toISOString() }], ['rotate-secret', {}]] as const) {
      expectError(await post(viewer.token, `/webhooks/${e.id}/${op}`, body), 403, 'FORBIDDEN');
    }
    expect((await t.request('GET', '/events', { key: viewer.token })).status).toBe(200);
    expect((await post(developer.token, `/webhooks/${e.id}/test`)).status).toBe(200);
  });
});

describe('endpoint limit', () => {
  it('allows at most 20 endpoints per merchant, also when 25 are created at once', async () => {
    const m = await t.merchant();
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => post(m.key, '/webhooks', { url: rx.url(`/limit-${i}`), events: ['CHARGE_PAID'] })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 400, 'VALIDATION_ERROR', /^url: at most 20 webhook endpoints$/);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE merchant_id = $1', [m.id]);
    expect(rows[0].n).toBe(20);
    // A deletion makes room again.
    const one = results.find((r) => r.status === 201)!.body.data.id;
    expect((await t.request('DELETE', `/webhooks/${one}`, { key: m.key })).status).toBe(200);
    expect((await post(m.key, '/webhooks', { url: rx.url('/limit-again'), events: ['CHARGE_PAID'] })).status).toBe(201);
  });
});
