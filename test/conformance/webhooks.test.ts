// docs/contract/webhooks.md over HTTP: endpoints, accepted events, URL rules, the
// delivery payload per event type, signatures, delivery records, retries and callback routing.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../src/platform/jobs.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver, type Hit } from '../webhooks/support/receiver.js';
import { createCharge, expectError, expectOk, fund, idOf, ISO_MS, keys, pay, type M } from './support.js';

let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  t = await createTestContext({ WEBHOOK_RETRY_BASE_MS: '50', SIM_PAYOUT_DELAY_MS: '300000', SIM_REFUND_DELAY_MS: '300000' });
  rx = await new Receiver().start();
});
afterAll(async () => {
  await rx?.stop();
  await t?.close();
});

const SUBSCRIBABLE = ['CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED', 'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED'];
const register = async (x: M, url: string, events: string[]) => expectOk(await t.request('POST', '/webhooks', { key: x.key, body: { url, events } }), 201);
const hitsFor = (path: string, n: number) => eventually(() => {
  const hits = rx.hitsFor(path);
  if (hits.length < n) throw new Error(`${hits.length} of ${n} hits on ${path}`);
  return hits;
});
const body = (h: Hit) => JSON.parse(h.raw.toString('utf8'));
const withoutImage = ({ imageBase64: _i, ...rest }: Record<string, unknown>) => rest;

describe('endpoints (docs/contract/webhooks.md#webhook-endpoints)', () => {
  it('create: 201 {id, url, events, createdAt, secret whsec_}; list and get without the secret', async () => {
    const m = await t.merchant();
    const url = rx.url(rx.path());
    const created = await register(m, url, ['CHARGE_PAID', 'REFUND_COMPLETED']);
    expect(keys(created)).toEqual(['createdAt', 'events', 'id', 'secret', 'url']);
    expect(created).toMatchObject({ url, events: ['CHARGE_PAID', 'REFUND_COMPLETED'] });
    expect(created.id).toMatch(idOf('whk'));
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.createdAt).toMatch(ISO_MS);
    const { secret: _s, ...endpoint } = created;
    expect(expectOk(await t.request('GET', `/webhooks/${created.id}`, { key: m.key }))).toEqual(endpoint);
    expect(expectOk(await t.request('GET', '/webhooks', { key: m.key }))).toEqual([endpoint]);
  });

  it('events: the 8 subscribable names plus CHARGE_CREATED and SPLIT_RECEIVED; 1 to 8, distinct', async () => {
    const m = await t.merchant();
    for (const name of [...SUBSCRIBABLE, 'CHARGE_CREATED', 'SPLIT_RECEIVED']) await register(m, rx.url(rx.path()), [name]);
    expect((await register(m, rx.url(rx.path()), SUBSCRIBABLE)).events).toEqual(SUBSCRIBABLE);
    const post = (events: unknown) => t.request('POST', '/webhooks', { key: m.key, body: { url: rx.url(rx.path()), events } });
    expectError(await post([]), 400, 'VALIDATION_ERROR', 'events: must have at least 1 item');
    expectError(await post([...SUBSCRIBABLE, 'CHARGE_CREATED']), 400, 'VALIDATION_ERROR', 'events: must have at most 8 items');
    expectError(await post(['CHARGE_PAID', 'CHARGE_PAID']), 400, 'VALIDATION_ERROR', 'events: must not contain duplicates');
    expectError(await post('CHARGE_PAID'), 400, 'VALIDATION_ERROR', 'events: must be an array');
    for (const bad of [['CHARGE_REFUNDED'], ['charge_paid'], [5]]) {
      const res = await post(bad);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message.startsWith('events: ')).toBe(true);
    }
    expectError(await t.request('POST', '/webhooks', { key: m.key, body: { events: ['CHARGE_PAID'] } }), 400, 'VALIDATION_ERROR', 'url: is required');
  });

  it('one endpoint per normalised URL: CONFLICT; shown normalised; DELETE is permanent and a new registration has a new secret', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const first = await register(m, rx.url(path).replace('http://', 'HTTP://'), ['CHARGE_PAID']);
    expect(first.url).toBe(rx.url(path));
    expectError(await t.request('POST', '/webhooks', { key: m.key, body: { url: rx.url(`/x/..${path}`), events: ['CHARGE_PAID'] } }), 409, 'CONFLICT');
    const x = await t.merchant();
    await register(x, rx.url(path), ['CHARGE_PAID']);
    const del = await t.request('DELETE', `/webhooks/${first.id}`, { key: m.key });
    expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { data: null, error: null, success: true } });
    expectError(await t.request('DELETE', `/webhooks/${first.id}`, { key: m.key }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/webhooks/${first.id}`, { key: m.key }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `/webhooks/${first.id}/deliveries`, { key: m.key }), 404, 'NOT_FOUND');
    const again = await register(m, rx.url(path), ['CHARGE_PAID']);
    expect(again.id).not.toBe(first.id);
    expect(again.secret).not.toBe(first.secret);
    expectError(await t.request('DELETE', `/webhooks/${again.id}`, { key: x.key }), 404, 'NOT_FOUND');
  });
});

describe('URL rules without WEBHOOK_ALLOW_PRIVATE (docs/contract/webhooks.md#webhook-urls)', () => {
  it('https only, ≤ 2048 characters, no private or loopback address — for endpoints and clientCallbackUrl alike', async () => {
    const strict = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'false' });
    try {
      const m = await strict.merchant();
      const long = `https://93.184.216.34/${'a'.repeat(2049 - 'https://93.184.216.34/'.length)}`;
      for (const url of ['http://93.184.216.34/h', 'https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://169.254.169.254/h',
        'https://[::1]/h', 'https://localhost/h', 'https://100.64.0.1/h', 'https://192.168.0.1/h', 'not a url', long]) {
        const hook = await strict.request('POST', '/webhooks', { key: m.key, body: { url, events: ['CHARGE_PAID'] } });
        expectError(hook, 400, 'VALIDATION_ERROR');
        expect(hook.body.message.startsWith('url: ')).toBe(true);
        const wd = await strict.request('POST', '/withdrawals', {
          key: m.key, body: { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL', clientCallbackUrl: url },
        });
        expectError(wd, 400, 'VALIDATION_ERROR');
        expect(wd.body.message.startsWith('clientCallbackUrl: ')).toBe(true);
      }
      expectOk(await strict.request('POST', '/webhooks', { key: m.key, body: { url: 'https://93.184.216.34/h', events: ['CHARGE_PAID'] } }), 201);
    } finally {
      await strict.close();
    }
  });
});

describe('deliveries (docs/contract/webhooks.md#delivery)', () => {
  it('POST {id, event, createdAt, data}, signed t=<unix s>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whsec_ string>, Service-Event-Id', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const hook = await register(m, rx.url(path), ['CHARGE_CREATED']);
    const c = await createCharge(t, m);
    const [hit] = await hitsFor(path, 1);
    expect(hit!.method).toBe('POST');
    expect(hit!.headers['content-type']).toMatch(/^application\/json/);
    const payload = body(hit!);
    expect(keys(payload)).toEqual(['createdAt', 'data', 'event', 'id']);
    expect(payload).toMatchObject({ event: 'CHARGE_CREATED' });
    expect(payload.id).toMatch(idOf('evt'));
    expect(payload.createdAt).toMatch(ISO_MS);
    expect(hit!.headers['service-event-id']).toBe(payload.id);
    const sig = String(hit!.headers['service-signature']);
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig);
    expect(match).not.toBeNull();
    const ts = Number(match![1]);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(60);
    expect(match![2]).toBe(createHmac('sha256', hook.secret).update(`${match![1]}.${hit!.raw.toString('utf8')}`).digest('hex'));
    expect(payload.data).toEqual(withoutImage(expectOk(await t.request('GET', `/transparents/check?id=${c.id}`, { key: m.key }))));

    const [record] = await eventually(async () => {
      const list = expectOk(await t.request('GET', `/webhooks/${hook.id}/deliveries`, { key: m.key }));
      return list.length === 1 && list;
    });
    expect(keys(record)).toEqual(['attempt', 'createdAt', 'durationMs', 'error', 'event', 'eventId', 'id', 'manual', 'statusCode', 'success']);
    expect(record).toMatchObject({ eventId: payload.id, event: 'CHARGE_CREATED', attempt: 1, statusCode: 200, success: true, error: null });
    expect(record.id).toMatch(idOf('dlv'));
    expect(record.createdAt).toMatch(ISO_MS);
    expect(Number.isInteger(record.durationMs)).toBe(true);
  });

  it('data per event: charge events as check shows it without the image; refund events carry refund; SPLIT_RECEIVED; only subscribed events', async () => {
    const m = await t.merchant();
    const r = await t.merchant();
    const mPath = rx.path();
    const rPath = rx.path();
    await register(m, rx.url(mPath), ['CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED']);
    await register(r, rx.url(rPath), ['SPLIT_RECEIVED']);
    await fund(t, m, 5000);
    const cu = expectOk(await t.request('POST', '/customers', { key: m.key, body: { email: 'p@example.com', phone: '+5511900000000' } }), 201);
    const c = await createCharge(t, m, { amount: 2000, customerId: cu.id, split: [{ merchantId: r.id, mode: 'FIXED', value: 300 }] });
    const paid = await pay(t, c.id);
    const refunded = expectOk(await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key }));
    const failed = expectOk(await t.admin('POST', `/admin/simulator/refunds/${refunded.refund.id}/fail`, { reason: 'x' }));
    const refunded2 = expectOk(await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key }));
    const completed = expectOk(await t.admin('POST', `/admin/simulator/refunds/${refunded2.refund.id}/complete`));
    const e = await createCharge(t, m);
    await t.pool.query(`UPDATE charges SET created_at = created_at - interval '2 days', expires_at = now() - interval '1 millisecond' WHERE id = $1`, [e.id]);
    await enqueue(t.pool, 'charges.expire', { chargeId: e.id }, { jobKey: `charge-expire:${e.id}` });

    const hits = (await hitsFor(mPath, 5)).map(body);
    // The funding charge's CHARGE_PAID comes first.
    const byEvent = (name: string, id: string) => hits.filter((p) => p.event === name && p.data.id === id).map((p) => p.data);
    expect(hits.map((p) => p.event).sort()).toEqual(['CHARGE_EXPIRED', 'CHARGE_PAID', 'CHARGE_PAID', 'REFUND_COMPLETED', 'REFUND_FAILED']);
    expect(byEvent('CHARGE_PAID', c.id)).toEqual([withoutImage(paid)]);
    expect(byEvent('CHARGE_PAID', c.id)[0].customer).toEqual({ id: cu.id, name: null, taxId: null, email: 'p@example.com', phone: '+5511900000000' });
    expect(byEvent('REFUND_FAILED', c.id)).toEqual([withoutImage(failed)]);
    expect(byEvent('REFUND_COMPLETED', c.id)).toEqual([withoutImage(completed)]);
    expect(byEvent('REFUND_COMPLETED', c.id)[0].refund).toMatchObject({ status: 'COMPLETED', reason: 'MERCHANT' });
    const expired = byEvent('CHARGE_EXPIRED', e.id);
    expect(expired).toEqual([withoutImage(expectOk(await t.request('GET', `/transparents/check?id=${e.id}`, { key: m.key })))]);
    expect(expired[0].status).toBe('EXPIRED');

    const split = (await hitsFor(rPath, 1)).map(body);
    expect(split.map((p) => p.event)).toEqual(['SPLIT_RECEIVED']);
    expect(split[0].data).toEqual({ chargeId: c.id, merchantId: m.id, amount: 300, paidAt: paid.paidAt });
    await t.assertLedger();
  });

  it('WITHDRAWAL_* carry the full record; a clientCallbackUrl replaces the general endpoints for that withdrawal', async () => {
    const m = await t.merchant();
    const general = rx.path();
    const callback = rx.path();
    await register(m, rx.url(general), ['WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED']);
    await fund(t, m, 5000);
    const w1 = expectOk(await t.request('POST', '/withdrawals', {
      key: m.key, body: { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL', clientCallbackUrl: rx.url(callback) },
    }), 201);
    const done = expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w1.id}/complete`));
    const [cb] = (await hitsFor(callback, 1)).map(body);
    expect(cb).toMatchObject({ event: 'WITHDRAWAL_COMPLETED', data: done });
    expect(cb.data).toEqual(expectOk(await t.request('GET', `/withdrawals/${w1.id}`, { key: m.key })));
    const endpoints = expectOk(await t.request('GET', '/webhooks', { key: m.key })) as Array<{ url: string; events: string[] }>;
    expect(endpoints.find((e) => e.url === rx.url(callback))?.events).toEqual(['WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED']);

    const w2 = expectOk(await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL' } }), 201);
    const fail = expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w2.id}/fail`, { reason: 'nope' }));
    const generalHits = (await hitsFor(general, 1)).map(body);
    expect(generalHits).toHaveLength(1);
    expect(generalHits[0]).toMatchObject({ event: 'WITHDRAWAL_FAILED', data: fail });
    expect(generalHits[0].data.failedReason).toBe('nope');
    await t.assertLedger();
  });

  it('4xx: recorded, not retried; 5xx: retried, at most 3 attempts, each signed afresh and recorded', async () => {
    const m = await t.merchant();
    const four = rx.path(404);
    const five = rx.path(500, 503, 502, 500);
    const h4 = await register(m, rx.url(four), ['CHARGE_CREATED']);
    const h5 = await register(m, rx.url(five), ['CHARGE_CREATED']);
    await createCharge(t, m);
    const records = await eventually(async () => {
      const list = expectOk(await t.request('GET', `/webhooks/${h5.id}/deliveries`, { key: m.key }));
      return list.length === 3 && list;
    }, 10_000);
    expect(records.map((d: { attempt: number; statusCode: number; success: boolean }) => [d.attempt, d.statusCode, d.success]))
      .toEqual([[3, 502, false], [2, 503, false], [1, 500, false]]);
    expect(records.every((d: { error: string | null }) => typeof d.error === 'string')).toBe(true);
    const four4 = expectOk(await t.request('GET', `/webhooks/${h4.id}/deliveries`, { key: m.key }));
    expect(four4.map((d: { attempt: number; statusCode: number; success: boolean }) => [d.attempt, d.statusCode, d.success])).toEqual([[1, 404, false]]);
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.hitsFor(four)).toHaveLength(1);
    expect(rx.hitsFor(five)).toHaveLength(3);
    const bodies = new Set(rx.hitsFor(five).map((h) => h.raw.toString('utf8')));
    expect(bodies.size).toBe(1);
  });
});
