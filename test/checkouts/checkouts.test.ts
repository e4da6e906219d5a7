import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from '../webhooks/support/receiver.js';
import { register } from '../webhooks/support/helpers.js';
import { balance, check, events, expectError, pay, validTaxId } from '../charges/support.js';
import { cart, CHECKOUT_KEYS, createCheckout, getCheckout } from './support.js';

let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ SIM_REFUND_DELAY_MS: '100000', PUBLIC_URL: 'https://pay.loja.example' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

const post = (key: string, body: unknown) => t.request('POST', '/checkouts', { key, body });

describe('POST /checkouts', () => {
  it('makes a checkout that owns one ordinary charge with the cart total', async () => {
    const m = await t.merchant();
    const customer = (await t.request('POST', '/customers', { key: m.key, body: { email: 'ana@example.com', name: 'Ana Souza', taxId: validTaxId(), phone: '+5511999990000' } })).body.data;
    const res = await post(m.key, {
      items: cart, customerId: customer.id, description: 'Pedido 42', externalId: 'order-42', metadata: { orderId: '42', canal: 'site' },
      returnUrl: 'https://loja.example/carrinho', completionUrl: 'https://loja.example/obrigado?x=1', expiresIn: 600,
    });
    expect(res.status).toBe(201);
    const k = res.body.data;
    expect(Object.keys(k).sort()).toEqual([...CHECKOUT_KEYS, 'customer'].sort());
    expect(k).toMatchObject({
      status: 'PENDING', amount: 2 * 4990 + 1500, items: cart, description: 'Pedido 42', externalId: 'order-42',
      metadata: { orderId: '42', canal: 'site' }, url: `https://pay.loja.example/pay/${k.id}`, paymentLinkId: null, paidAt: null,
      customer: { id: customer.id, name: 'Ana Souza', email: 'ana@example.com', taxId: customer.taxId },
    });
    expect(k.id).toMatch(/^chk_[0-9A-Za-z]{22}$/);
    expect(Date.parse(k.expiresAt) - Date.parse(k.createdAt)).toBe(600_000);

    const charge = await check(t, m, k.chargeId);
    expect(charge).toMatchObject({ amount: k.amount, checkoutId: k.id, description: 'Pedido 42', brCode: k.brCode, expiresAt: k.expiresAt, status: 'PENDING' });
    expect(charge.customer.id).toBe(customer.id);
    const listed = (await t.request('GET', `/transparents/list?id=${k.chargeId}`, { key: m.key })).body.data;
    expect(listed[0].checkoutId).toBe(k.id);
    const plain = (await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 } })).body.data;
    expect(plain.checkoutId).toBeNull();

    const detail = await getCheckout(t, m, k.id);
    expect(detail).toEqual({ ...k, customer: { ...k.customer, phone: '+5511999990000' } });
    const created = await events(t, m.id, 'CHARGE_CREATED');
    expect(created.find((e) => e.data.id === k.chargeId)!.data.checkoutId).toBe(k.id);
  });

  it('defaults: no optional field gives nulls, one day to pay', async () => {
    const m = await t.merchant();
    const k = await createCheckout(t, m);
    expect(k).toMatchObject({ description: null, externalId: null, metadata: null, returnUrl: null, completionUrl: null });
    expect(k.customer).toBeUndefined();
    expect(Date.parse(k.expiresAt) - Date.parse(k.createdAt)).toBe(86_400_000);
  });

  it.each([
    [{ items: [] }, 'items: must have at least 1 item'],
    [{ items: [{ name: 'x', quantity: 1, unitPrice: 99 }] }, 'items: total must be >= 100'],
    [{ items: [{ name: 'x', quantity: 10_000, unitPrice: 100_000 }] }, 'items: total must be <= 100000000'],
    [{ items: [{ name: 'x', quantity: 1.5, unitPrice: 100 }] }, undefined],
    [{ items: [{ name: 'x', quantity: 1, unitPrice: '100' }] }, undefined],
    [{ items: [{ name: '', quantity: 1, unitPrice: 100 }] }, undefined],
    [{ items: Array.from({ length: 51 }, () => ({ name: 'x', quantity: 1, unitPrice: 100 })) }, undefined],
    [{ items: cart, expiresIn: 299 }, 'expiresIn: must be >= 300'],
    [{ items: cart, expiresIn: 2_592_001 }, undefined],
    [{ items: cart, description: 'x'.repeat(141) }, undefined],
    [{ items: cart, externalId: 'x'.repeat(101) }, undefined],
    [{ items: cart, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, undefined],
    [{ items: cart, metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata: keys must be at most 40 characters'],
    [{ items: cart, metadata: { k: 'v'.repeat(501) } }, undefined],
    [{ items: cart, metadata: { k: 1 } }, undefined],
    [{ items: cart, returnUrl: 'javascript:alert(1)' }, 'returnUrl: must be an absolute http(s) URL'],
    [{ items: cart, completionUrl: '/obrigado' }, 'completionUrl: must be an absolute http(s) URL'],
    [{ items: cart, completionUrl: `https://x.example/${'a'.repeat(2048)}` }, undefined],
    [{ items: cart, customerId: 'cust_nope' }, 'customerId: not found'],
  ])('refuses %j', async (body, message) => {
    const m = await t.merchant();
    const res = await post(m.key, body);
    expectError(res, 400, 'VALIDATION_ERROR', message);
  });

  it('obeys the merchant tickets (message items:), KYC and the split rules', async () => {
    const m = await t.merchant({ minTicket: 20_000 });
    expectError(await post(m.key, { items: cart }), 400, 'VALIDATION_ERROR', 'items: must be >= 20000');
    const pendingKyc = await t.merchant({ kyc: { status: 'PENDING' } });
    expectError(await post(pendingKyc.key, { items: [{ name: 'x', quantity: 1, unitPrice: 1 }] }), 403, 'FORBIDDEN');
    const other = await t.merchant();
    const split = [{ merchantId: other.id, mode: 'PERCENT', value: 10 }];
    const k = await createCheckout(t, m, { items: [{ name: 'TV', quantity: 1, unitPrice: 30_000 }], split });
    expect((await check(t, m, k.chargeId)).split).toEqual([{ ...split[0], amount: 3000 }]);
    expectError(await post(m.key, { items: [{ name: 'TV', quantity: 1, unitPrice: 30_000 }], split: [{ merchantId: m.id, mode: 'FIXED', value: 1 }] }),
      400, 'VALIDATION_ERROR', 'split[0].merchantId: cannot be the charging merchant');
  });

  it('an Idempotency-Key replays the same checkout and makes one charge', async () => {
    const m = await t.merchant();
    const headers = { 'idempotency-key': 'chk-1' };
    const [a, b] = await Promise.all([
      t.request('POST', '/checkouts', { key: m.key, body: { items: cart }, headers }),
      t.request('POST', '/checkouts', { key: m.key, body: { items: cart }, headers }),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(201);
    const first = a.status === 201 ? a : b;
    const again = await t.request('POST', '/checkouts', { key: m.key, body: { items: cart }, headers });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    expect((await t.request('GET', '/checkouts', { key: m.key })).body.data).toHaveLength(1);
    expect((await t.request('GET', '/transparents/list', { key: m.key })).body.data).toHaveLength(1);
    const other = await t.request('POST', '/checkouts', { key: m.key, body: { items: [{ name: 'y', quantity: 1, unitPrice: 500 }] }, headers });
    expectError(other, 409, 'IDEMPOTENCY_CONFLICT');
  });
});

describe('OpenAPI', () => {
  it('documents every new route', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    for (const path of ['/checkouts', '/checkouts/{id}', '/checkouts/{id}/refund', '/payment-links', '/payment-links/{id}', '/me/branding',
      '/pay/{id}', '/pay/{id}/status', '/pay/{id}/events', '/pay/{id}/simulate', '/l/{id}', '/l/{id}/checkouts', '/pay/logos/{id}']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/checkouts'].post.parameters.some((p: any) => p.name === 'Idempotency-Key')).toBe(true);
  });
});

describe('GET /checkouts', () => {
  it('lists newest first with filters status, externalId and paymentLinkId; another merchant sees nothing', async () => {
    const m = await t.merchant();
    const a = await createCheckout(t, m, { externalId: 'A' });
    const b = await createCheckout(t, m, { externalId: 'B' });
    await pay(t, b.chargeId);
    const all = await t.request('GET', '/checkouts', { key: m.key });
    expect(all.body.data.map((k: any) => k.id)).toEqual([b.id, a.id]);
    expect(all.body.pagination).toMatchObject({ hasMore: false });
    expect((await t.request('GET', '/checkouts?status=PAID', { key: m.key })).body.data.map((k: any) => k.id)).toEqual([b.id]);
    expect((await t.request('GET', '/checkouts?status=PENDING', { key: m.key })).body.data.map((k: any) => k.id)).toEqual([a.id]);
    expect((await t.request('GET', '/checkouts?externalId=A', { key: m.key })).body.data.map((k: any) => k.id)).toEqual([a.id]);
    expect((await t.request('GET', '/checkouts?paymentLinkId=plk_x', { key: m.key })).body.data).toEqual([]);
    const page = await t.request('GET', '/checkouts?limit=1', { key: m.key });
    expect(page.body.data.map((k: any) => k.id)).toEqual([b.id]);
    const next = await t.request('GET', `/checkouts?limit=1&after=${page.body.pagination.next}`, { key: m.key });
    expect(next.body.data.map((k: any) => k.id)).toEqual([a.id]);
    expectError(await t.request('GET', `/checkouts?limit=1&status=PAID&after=${page.body.pagination.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    expectError(await t.request('GET', '/checkouts?status=LOST', { key: m.key }), 400, 'VALIDATION_ERROR');

    const stranger = await t.merchant();
    expect((await t.request('GET', '/checkouts', { key: stranger.key })).body.data).toEqual([]);
    expectError(await t.request('GET', `/checkouts/${a.id}`, { key: stranger.key }), 404, 'NOT_FOUND', 'Checkout not found');
    expectError(await t.request('POST', `/checkouts/${b.id}/refund`, { key: stranger.key }), 404, 'NOT_FOUND');
  });
});

describe('payment, events and refunds', () => {
  it('CHECKOUT_PAID follows CHARGE_PAID in the same transaction, signed, with the checkout as data', async () => {
    const m = await t.merchant();
    const path = rx.path();
    const endpoint = await register(t, m.key, rx.url(path), ['CHARGE_PAID', 'CHECKOUT_PAID']);
    const k = await createCheckout(t, m, { completionUrl: 'https://loja.example/ok' });
    await pay(t, k.chargeId);
    const after = await getCheckout(t, m, k.id);
    expect(after.status).toBe('PAID');
    expect(after.paidAt).not.toBeNull();
    const { rows } = await t.pool.query(
      "SELECT type, body::jsonb -> 'data' AS data, created_at FROM events WHERE merchant_id = $1 AND type IN ('CHARGE_PAID', 'CHECKOUT_PAID') ORDER BY created_at, id", [m.id]);
    // One transaction: one createdAt for both (events of a transaction share it; their order within it is not listed).
    expect(rows.map((r) => r.type).sort()).toEqual(['CHARGE_PAID', 'CHECKOUT_PAID']);
    expect(rows[0].created_at).toEqual(rows[1].created_at);
    expect(rows.find((r) => r.type === 'CHECKOUT_PAID').data).toEqual(after);
    await eventually(() => rx.hitsFor(path).length === 2);
    const bodies = rx.hitsFor(path).map((h) => {
      expect(verifySignature({ payload: h.raw, header: String(h.headers['service-signature']), secret: endpoint.secret })).toBe(true);
      return JSON.parse(h.raw.toString());
    });
    expect(bodies.map((b) => b.event).sort()).toEqual(['CHARGE_PAID', 'CHECKOUT_PAID']);
    expect(bodies.find((b) => b.event === 'CHECKOUT_PAID').data).toEqual(after);
    await t.assertLedger();
  });

  it('an endpoint receives CHECKOUT_PAID after the CHARGE_PAID it follows has been answered, CHECKOUT_REFUNDED after REFUND_COMPLETED', async () => {
    const m = await t.merchant();
    // The first event of each state change is held 400 ms: the next one of that change must not arrive meanwhile.
    const path = rx.path({ hangMs: 400 }, 200, { hangMs: 400 });
    await register(t, m.key, rx.url(path), ['CHARGE_PAID', 'CHECKOUT_PAID', 'REFUND_COMPLETED', 'CHECKOUT_REFUNDED']);
    const k = await createCheckout(t, m);
    await pay(t, k.chargeId);
    await eventually(() => rx.hitsFor(path).length === 2);
    expect((await t.request('POST', `/checkouts/${k.id}/refund`, { key: m.key })).status).toBe(200);
    const refundId = (await check(t, m, k.chargeId)).refund.id;
    await t.admin('POST', `/admin/simulator/refunds/${refundId}/complete`);
    await eventually(() => rx.hitsFor(path).length === 4);
    const hits = rx.hitsFor(path).map((h) => ({ event: JSON.parse(h.raw.toString()).event as string, at: h.at }));
    expect(hits.map((h) => h.event)).toEqual(['CHARGE_PAID', 'CHECKOUT_PAID', 'REFUND_COMPLETED', 'CHECKOUT_REFUNDED']);
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(380);
    expect(hits[3]!.at - hits[2]!.at).toBeGreaterThanOrEqual(380);
    await t.assertLedger();
  });

  it('unknown fields of a line are ignored: the events carry the lines as the API shows them (a checkout, a link\'s cart)', async () => {
    const m = await t.merchant();
    const line = { name: 'Camiseta', quantity: 1, unitPrice: 4990 };
    const k = await createCheckout(t, m, { items: [{ ...line, sku: 'CAM-1', note: { x: 1 } }] });
    expect(k.items).toEqual([line]);
    await pay(t, k.chargeId);
    const link = (await t.request('POST', '/payment-links', { key: m.key, body: { name: 'Kit', items: [{ ...line, sku: 'CAM-1' }] } })).body.data;
    expect(link.items).toEqual([line]);
    const made = await t.app.inject({ method: 'POST', url: `/l/${link.id}/checkouts`, payload: {} });
    expect(made.statusCode, made.body).toBe(201);
    const fromLink = made.json().data.id;
    await pay(t, (await getCheckout(t, m, fromLink)).chargeId);
    const paid = (await t.request('GET', '/events?type=CHECKOUT_PAID', { key: m.key })).body.data;
    expect(paid.map((e: any) => e.data.id).sort()).toEqual([k.id, fromLink].sort());
    for (const e of paid) {
      expect(e.data.items).toEqual([line]);
      expect(e.data).toEqual(await getCheckout(t, m, e.data.id));
    }
    expect((await getCheckout(t, m, fromLink)).items).toEqual([line]);
    await t.assertLedger();
  });

  it('a refund through /checkouts/{id}/refund and through /transparents/refund is the same refund; CHECKOUT_REFUNDED with REFUND_COMPLETED', async () => {
    const m = await t.merchant();
    const k = await createCheckout(t, m);
    expectError(await t.request('POST', `/checkouts/${k.id}/refund`, { key: m.key }), 400, 'INVALID_STATE');
    await pay(t, k.chargeId);
    const res = await t.request('POST', `/checkouts/${k.id}/refund`, { key: m.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: k.id, status: 'REFUNDED' });
    expectError(await t.request('POST', `/transparents/refund?id=${k.chargeId}`, { key: m.key }), 400, 'INVALID_STATE');
    expectError(await t.request('POST', `/checkouts/${k.id}/refund`, { key: m.key }), 400, 'INVALID_STATE');
    const refundId = (await check(t, m, k.chargeId)).refund.id;
    expect(await events(t, m.id, 'CHECKOUT_REFUNDED')).toEqual([]);
    await t.admin('POST', `/admin/simulator/refunds/${refundId}/complete`);
    const { rows } = await t.pool.query(
      "SELECT type, body::jsonb -> 'data' AS data FROM events WHERE merchant_id = $1 AND type IN ('REFUND_COMPLETED', 'CHECKOUT_REFUNDED') ORDER BY created_at, id", [m.id]);
    expect(rows.map((r) => r.type).sort()).toEqual(['CHECKOUT_REFUNDED', 'REFUND_COMPLETED']);
    expect(rows.find((r) => r.type === 'CHECKOUT_REFUNDED').data).toEqual(await getCheckout(t, m, k.id));
    expect(await balance(t, m)).toMatchObject({ available: 0 });

    const k2 = await createCheckout(t, m);
    await pay(t, k2.chargeId);
    expect((await t.request('POST', `/transparents/refund?id=${k2.chargeId}`, { key: m.key })).status).toBe(200);
    expect((await getCheckout(t, m, k2.id)).status).toBe('REFUNDED');
    expectError(await t.request('POST', `/checkouts/${k2.id}/refund`, { key: m.key }), 400, 'INVALID_STATE');
    await t.assertLedger();
  });

  it('refund roles: FINANCE may, DEVELOPER may not; VIEWER may not create', async () => {
    const m = await t.merchant();
    const k = await createCheckout(t, m);
    await pay(t, k.chargeId);
    const dev = await t.user(m.id, 'DEVELOPER');
    expectError(await t.request('POST', `/checkouts/${k.id}/refund`, { key: dev.token }), 403, 'FORBIDDEN');
    const viewer = await t.user(m.id, 'VIEWER');
    expectError(await post(viewer.token, { items: cart }), 403, 'FORBIDDEN');
    expect((await t.request('GET', `/checkouts/${k.id}`, { key: viewer.token })).status).toBe(200);
    const finance = await t.user(m.id, 'FINANCE');
    expect((await t.request('POST', `/checkouts/${k.id}/refund`, { key: finance.token })).status).toBe(200);
    await t.assertLedger();
  });

  it('a dispute accepted on its charge refunds the checkout (CHECKOUT_REFUNDED); an expired one reads EXPIRED', async () => {
    const m = await t.merchant();
    const k = await createCheckout(t, m);
    await pay(t, k.chargeId);
    const dispute = (await t.admin('POST', `/admin/simulator/charges/${k.chargeId}/dispute`)).body.data;
    expect((await getCheckout(t, m, k.id)).status).toBe('DISPUTED');
    await t.admin('POST', `/admin/simulator/disputes/${dispute.id}/resolve`, { outcome: 'ACCEPTED' });
    expect((await getCheckout(t, m, k.id)).status).toBe('REFUNDED');
    expect((await events(t, m.id, 'CHECKOUT_REFUNDED')).map((e) => e.data.id)).toEqual([k.id]);

    const old = await createCheckout(t, m, { expiresIn: 300 });
    await t.pool.query("UPDATE charges SET expires_at = now() - interval '1 second', created_at = now() - interval '1 hour' WHERE id = $1", [old.chargeId]);
    expect((await getCheckout(t, m, old.id)).status).toBe('EXPIRED');
    await t.assertLedger();
  });
});
