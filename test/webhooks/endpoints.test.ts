import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret, deriveKey } from '../../src/platform/secrets.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { register } from './support/helpers.js';

// WEBHOOK_ALLOW_PRIVATE=true here (the test default); the public-address rules are in registration-policy.test.ts.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const ENDPOINT_KEYS = ['createdAt', 'events', 'id', 'url'];
const ALL_EVENTS = [
  'CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED',
  'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED', 'SPLIT_RECEIVED',
  'SUBSCRIPTION_AUTHORIZED', 'SUBSCRIPTION_REJECTED', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_EXPIRED', 'SUBSCRIPTION_CHARGE_FAILED',
];
let n = 0;
const uniqueUrl = () => `https://hooks-${++n}.example.com/pix`;

async function expectValidation(key: string, body: unknown, message: string) {
  const res = await t.request('POST', '/webhooks', { key, body });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message, success: false });
}

describe('POST /webhooks', () => {
  it('creates an endpoint and shows its secret only in this answer', async () => {
    const m = await t.merchant();
    const res = await t.request('POST', '/webhooks', { key: m.key, body: { url: 'https://shop.example.com/hook', events: ['CHARGE_PAID', 'REFUND_COMPLETED'] } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'success']);
    expect(res.body.error).toBeNull();
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
    expect(d.id).toMatch(/^whk_[A-Za-z0-9]{22}$/);
    expect(d.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(d.url).toBe('https://shop.example.com/hook');
    expect(d.events).toEqual(['CHARGE_PAID', 'REFUND_COMPLETED']);
    expect(d.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const one = await t.request('GET', `/webhooks/${d.id}`, { key: m.key });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ id: d.id, url: d.url, events: d.events, createdAt: d.createdAt });
    const list = await t.request('GET', '/webhooks', { key: m.key });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([one.body.data]);
    expect(list.body.pagination).toEqual({ hasMore: false, next: null, before: null });
    expect(one.raw).not.toContain(d.secret);
    expect(list.raw).not.toContain(d.secret);
  });

  it('stores the secret only encrypted (AES-256-GCM under the webhook-secret key)', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, uniqueUrl(), ['CHARGE_PAID']);
    const { rows } = await t.pool.query('SELECT * FROM webhook_endpoints WHERE id = $1', [e.id]);
    const stored = rows[0].secret_encrypted as string;
    expect(stored).toMatch(/^v1\./);
    expect(JSON.stringify(rows[0])).not.toContain(e.secret.slice(6));
    expect(decryptSecret(deriveKey(t.rt.config.encryptionKey, 'webhook-secret'), stored)).toBe(e.secret);
  });

  it('stores and shows the WHATWG-normalised URL', async () => {
    const m = await t.merchant();
    const e = await register(t, m.key, '  HTTPS://Shop.EXAMPLE.com:443/a/../hook?x=1  ', ['CHARGE_PAID']);
    expect(e.url).toBe('https://shop.example.com/hook?x=1');
    const local = await register(t, m.key, 'http://LocalHost:8080/cb', ['CHARGE_PAID']);
    expect(local.url).toBe('http://localhost:8080/cb');
  });

  it('answers CONFLICT for a URL the merchant already registered, compared after normalisation', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    await register(t, m.key, 'https://dup.example.com/hook', ['CHARGE_PAID']);
    for (const url of ['https://dup.example.com/hook', 'https://DUP.example.com:443/./hook']) {
      const res = await t.request('POST', '/webhooks', { key: m.key, body: { url, events: ['REFUND_FAILED'] } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 'CONFLICT', message: 'A webhook endpoint is already registered for this URL', success: false });
    }
    // Another merchant may register the same URL.
    await register(t, other.key, 'https://dup.example.com/hook', ['CHARGE_PAID']);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = $1', ['https://dup.example.com/hook']);
    expect(rows[0].n).toBe(2);
  });

  it('accepts every subscribable event plus CHARGE_CREATED and SPLIT_RECEIVED, up to 8', async () => {
    const m = await t.merchant();
    const first8 = ALL_EVENTS.slice(0, 8);
    expect((await register(t, m.key, uniqueUrl(), first8)).events).toEqual(first8);
    expect((await register(t, m.key, uniqueUrl(), ALL_EVENTS.slice(2, 10))).events).toEqual(ALL_EVENTS.slice(2, 10));
    expect((await register(t, m.key, uniqueUrl(), ALL_EVENTS.slice(10))).events).toEqual(ALL_EVENTS.slice(10));
    expect((await register(t, m.key, uniqueUrl(), ['SPLIT_RECEIVED'])).events).toEqual(['SPLIT_RECEIVED']);
    expect((await register(t, m.key, uniqueUrl(), ['CHARGE_CREATED'])).events).toEqual(['CHARGE_CREATED']);
  });

  it('validates events', async () => {
    const m = await t.merchant();
    const url = uniqueUrl();
    const names = `each must be one of ${ALL_EVENTS.join(', ')}`;
    await expectValidation(m.key, { url }, 'events: is required');
    await expectValidation(m.key, { url, events: 'CHARGE_PAID' }, 'events: must be an array');
    await expectValidation(m.key, { url, events: [] }, 'events: must have at least 1 item');
    await expectValidation(m.key, { url, events: ALL_EVENTS.slice(0, 9) }, 'events: must have at most 8 items');
    await expectValidation(m.key, { url, events: ['CHARGE_PAID', 'CHARGE_PAID'] }, 'events: must not contain duplicates');
    await expectValidation(m.key, { url, events: ['CHARGE_PAID', 'NOPE'] }, `events: ${names}`);
    await expectValidation(m.key, { url, events: ['charge_paid'] }, `events: ${names}`);
    await expectValidation(m.key, { url, events: [1] }, `events: ${names}`);
    // Nothing was created by any of them.
    expect((await t.request('GET', '/webhooks', { key: m.key })).body.data).toEqual([]);
  });

  it('validates the url', async () => {
    const m = await t.merchant();
    const events = ['CHARGE_PAID'];
    await expectValidation(m.key, { events }, 'url: is required');
    await expectValidation(m.key, { url: 42, events }, 'url: must be a string');
    await expectValidation(m.key, { url: '', events }, 'url: must be a valid URL');
    await expectValidation(m.key, { url: 'not a url', events }, 'url: must be a valid URL');
    await expectValidation(m.key, { url: 'ftp://example.com/x', events }, 'url: must be an https URL');
    await expectValidation(m.key, { url: 'https://user:pw@example.com/x', events }, 'url: must not contain credentials');
    const long = `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`;
    expect(long.length).toBe(2049);
    await expectValidation(m.key, { url: long, events }, 'url: must be at most 2048 characters');
    const max = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    expect((await register(t, m.key, max, events)).url).toBe(max);
  });
});

describe('idempotent replay of POST /webhooks', () => {
  it('returns the secret again without storing it in clear, and NOT_FOUND once the endpoint is deleted', async () => {
    const m = await t.merchant();
    const body = { url: uniqueUrl(), events: ['CHARGE_PAID'] };
    const headers = { 'idempotency-key': 'create-hook-1' };
    const first = await t.request('POST', '/webhooks', { key: m.key, body, headers });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/webhooks', { key: m.key, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);

    const { rows } = await t.pool.query('SELECT body::text AS body FROM idempotency_keys WHERE merchant_id = $1', [m.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].body).toContain(first.body.data.id);
    expect(rows[0].body).not.toContain(first.body.data.secret);
    expect(rows[0].body).not.toContain('whsec_');

    expect((await t.request('GET', '/webhooks', { key: m.key })).body.data).toHaveLength(1);
    expect((await t.request('DELETE', `/webhooks/${first.body.data.id}`, { key: m.key })).status).toBe(200);
    const gone = await t.request('POST', '/webhooks', { key: m.key, body, headers });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'NOT_FOUND', message: 'Webhook endpoint not found', success: false });
  });

  it('replays a CONFLICT as stored', async () => {
    const m = await t.merchant();
    const body = { url: uniqueUrl(), events: ['CHARGE_PAID'] };
    await register(t, m.key, body.url, body.events);
    const headers = { 'idempotency-key': 'dup-1' };
    const first = await t.request('POST', '/webhooks', { key: m.key, body, headers });
    const again = await t.request('POST', '/webhooks', { key: m.key, body, headers });
    expect(first.status).toBe(409);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(first.body);
  });
});

describe('GET and DELETE /webhooks/{id}', () => {
  it('hides another merchant\'s endpoint on every route', async () => {
    const owner = await t.merchant();
    const other = await t.merchant();
    const e = await register(t, owner.key, uniqueUrl(), ['CHARGE_PAID']);
    const notFound = { error: 'NOT_FOUND', message: 'Webhook endpoint not found', success: false };
    for (const [method, path] of [['GET', `/webhooks/${e.id}`], ['DELETE', `/webhooks/${e.id}`], ['GET', `/webhooks/${e.id}/deliveries`]] as const) {
      const res = await t.request(method, path, { key: other.key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual(notFound);
      const unknown = await t.request(method, path.replace(e.id, 'whk_doesnotexist'), { key: owner.key });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(notFound);
    }
    expect((await t.request('GET', '/webhooks', { key: other.key })).body.data).toEqual([]);
    expect((await t.request('GET', `/webhooks/${e.id}`, { key: owner.key })).status).toBe(200);
  });

  it('deletes permanently; the URL can be registered again with a new secret', async () => {
    const m = await t.merchant();
    const url = uniqueUrl();
    const e = await register(t, m.key, url, ['CHARGE_PAID']);
    const del = await t.request('DELETE', `/webhooks/${e.id}`, { key: m.key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: null, error: null, success: true });
    expect((await t.request('GET', `/webhooks/${e.id}`, { key: m.key })).status).toBe(404);
    expect((await t.request('DELETE', `/webhooks/${e.id}`, { key: m.key })).status).toBe(404);
    expect((await t.request('GET', '/webhooks', { key: m.key })).body.data).toEqual([]);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = $1', [e.id]);
    expect(rows[0].n).toBe(0);

    const again = await register(t, m.key, url, ['REFUND_FAILED']);
    expect(again.id).not.toBe(e.id);
    expect(again.secret).not.toBe(e.secret);
    expect(again.url).toBe(url);
  });
});

describe('GET /webhooks pagination', () => {
  it('pages newest first, forward and back, and binds cursors to the merchant and the list', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await register(t, m.key, uniqueUrl(), ['CHARGE_PAID']));
    await register(t, other.key, uniqueUrl(), ['CHARGE_PAID']);
    const newestFirst = [...made].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).map((e) => e.id);

    const p1 = await t.request('GET', '/webhooks?limit=2', { key: m.key });
    expect(p1.body.data.map((e: any) => e.id)).toEqual(newestFirst.slice(0, 2));
    expect(p1.body.pagination.hasMore).toBe(true);
    expect(p1.body.pagination.before).toBeNull();
    const p2 = await t.request('GET', `/webhooks?limit=2&after=${p1.body.pagination.next}`, { key: m.key });
    expect(p2.body.data.map((e: any) => e.id)).toEqual(newestFirst.slice(2, 4));
    const p3 = await t.request('GET', `/webhooks?limit=2&after=${p2.body.pagination.next}`, { key: m.key });
    expect(p3.body.data.map((e: any) => e.id)).toEqual(newestFirst.slice(4));
    expect(p3.body.pagination).toMatchObject({ hasMore: false, next: null });
    const back = await t.request('GET', `/webhooks?limit=2&before=${p2.body.pagination.before}`, { key: m.key });
    expect(back.body.data).toEqual(p1.body.data);
    for (const item of [...p1.body.data, ...p2.body.data]) expect(Object.keys(item).sort()).toEqual(ENDPOINT_KEYS);

    const foreign = await t.request('GET', `/webhooks?after=${p1.body.pagination.next}`, { key: other.key });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ error: 'VALIDATION_ERROR', message: 'after: invalid cursor', success: false });
    const wrongList = await t.request('GET', `/webhooks/${made[0]!.id}/deliveries?after=${p1.body.pagination.next}`, { key: m.key });
    expect(wrongList.status).toBe(400);
    expect(wrongList.body.message).toBe('after: invalid cursor');
  });
});
