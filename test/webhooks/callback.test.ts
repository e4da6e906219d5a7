import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db.js';
import { upsertCallbackEndpoint } from '../../src/webhooks/callback-endpoint.service.js';
import { verifySignature } from '../../src/webhooks/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from './support/receiver.js';
import { deliveriesOf, emit, register, sleep } from './support/helpers.js';

let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

const withdrawal = (id: string) => ({ id, amount: 5000, fee: 100, status: 'COMPLETED', pixKey: 'ana@example.com', pixKeyType: 'EMAIL' });
const upsert = (merchantId: string, url: string) => withTransaction(t.pool, (tx) => upsertCallbackEndpoint(tx, merchantId, url));
const listEndpoints = async (key: string) => (await t.request('GET', '/webhooks', { key })).body.data as any[];

describe('clientCallbackUrl routing', () => {
  it('sends an event with a callbackUrl only to that endpoint, even when another subscribes to its type', async () => {
    const m = await t.merchant();
    const [pg, pk] = [rx.path(), rx.path()];
    const general = await register(t, m.key, rx.url(pg), ['WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED']);
    const callback = await register(t, m.key, rx.url(pk), ['CHARGE_PAID']);
    await upsert(m.id, callback.url);

    const routed = await emit(t, m.id, 'WITHDRAWAL_COMPLETED', withdrawal('wd_1'), callback.url);
    const [record] = await deliveriesOf(t, m.key, callback.id, 1);
    expect(record).toMatchObject({ eventId: routed, event: 'WITHDRAWAL_COMPLETED', success: true });
    // Registered first through POST /webhooks, so the merchant knows the secret that signs it.
    const hit = rx.hitsFor(pk)[0]!;
    expect(verifySignature({ payload: hit.raw, header: String(hit.headers['service-signature']), secret: callback.secret })).toBe(true);

    // Without a callbackUrl the event goes to every subscribed endpoint (the callback one now subscribes too).
    const general2 = await emit(t, m.id, 'WITHDRAWAL_FAILED', { ...withdrawal('wd_2'), status: 'FAILED' });
    await deliveriesOf(t, m.key, general.id, 1);
    await deliveriesOf(t, m.key, callback.id, 2);
    await sleep(200);
    expect(rx.hitsFor(pg).map((h) => h.headers['service-event-id'])).toEqual([general2]);
  });

  it('matches the callback URL in its normalised form and never another merchant\'s endpoint', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const path = rx.path();
    // Subscribed to something else: only the callback routing can bring the event here.
    const mine = await register(t, m.key, rx.url(path), ['CHARGE_PAID']);
    const theirs = await register(t, other.key, rx.url(path), ['WITHDRAWAL_COMPLETED']);
    const raw = rx.url(path).replace('http://', 'HTTP://').replace(path, `/x/..${path}`);
    const eventId = await emit(t, m.id, 'WITHDRAWAL_COMPLETED', withdrawal('wd_3'), raw);
    expect((await deliveriesOf(t, m.key, mine.id, 1))[0].eventId).toBe(eventId);
    await sleep(200);
    expect(await deliveriesOf(t, other.key, theirs.id, 0)).toEqual([]);
  });

  it('delivers nothing when the callback endpoint was deleted, not even to general endpoints', async () => {
    const m = await t.merchant();
    const [pg, pk] = [rx.path(), rx.path()];
    await register(t, m.key, rx.url(pg), ['WITHDRAWAL_COMPLETED']);
    const url = rx.url(pk);
    await upsert(m.id, url);
    const [created] = (await listEndpoints(m.key)).filter((e) => e.url === url);
    expect((await t.request('DELETE', `/webhooks/${created.id}`, { key: m.key })).status).toBe(200);
    await emit(t, m.id, 'WITHDRAWAL_COMPLETED', withdrawal('wd_4'), url);
    await sleep(500);
    expect(rx.hitsFor(pg)).toHaveLength(0);
    expect(rx.hitsFor(pk)).toHaveLength(0);
  });
});

describe('upsertCallbackEndpoint', () => {
  it('creates an endpoint for a new URL, subscribed to the two withdrawal events, and signs its deliveries', async () => {
    const m = await t.merchant();
    const path = rx.path();
    await upsert(m.id, rx.url(path));
    const [endpoint] = await listEndpoints(m.key);
    expect(endpoint).toEqual({ id: expect.stringMatching(/^whk_/), url: rx.url(path), events: ['WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED'], createdAt: expect.any(String) });

    await emit(t, m.id, 'WITHDRAWAL_FAILED', { ...withdrawal('wd_5'), status: 'FAILED' }, rx.url(path));
    await eventually(() => rx.hitsFor(path).length === 1);
    expect(String(rx.hitsFor(path)[0]!.headers['service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const { rows } = await t.pool.query('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(rows[0].secret_encrypted).toMatch(/^v1\./);
    // The same secret signs later deliveries (drawn once).
    await emit(t, m.id, 'WITHDRAWAL_COMPLETED', withdrawal('wd_6'), rx.url(path));
    await eventually(() => rx.hitsFor(path).length === 2);
    const again = await t.pool.query('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(again.rows[0].secret_encrypted).toBe(rows[0].secret_encrypted);
  });

  it('adds the withdrawal events to an existing endpoint, keeping its id, secret and other events', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, 'https://shop.example.com/hooks', ['CHARGE_PAID', 'WITHDRAWAL_FAILED']);
    const before = await t.pool.query('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [e.id]);
    await upsert(m.id, 'https://shop.example.com/hooks');
    await upsert(m.id, 'https://SHOP.example.com:443/hooks');
    expect(await listEndpoints(m.key)).toEqual([{ id: e.id, url: e.url, createdAt: e.createdAt, events: ['CHARGE_PAID', 'WITHDRAWAL_FAILED', 'WITHDRAWAL_COMPLETED'] }]);
    const after = await t.pool.query('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [e.id]);
    expect(after.rows[0].secret_encrypted).toBe(before.rows[0].secret_encrypted);
  });

  it('converges on one endpoint when concurrent withdrawals name the same new URL', async () => {
    const m = await t.merchant();
    await Promise.all(Array.from({ length: 6 }, () => upsert(m.id, 'https://race.example.com/cb')));
    const endpoints = await listEndpoints(m.key);
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0].events).toEqual(['WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED']);
    const dup = await t.request('POST', '/webhooks', { key: m.key, body: { url: 'https://race.example.com/cb', events: ['CHARGE_PAID'] } });
    expect(dup.status).toBe(409);
  });
});
