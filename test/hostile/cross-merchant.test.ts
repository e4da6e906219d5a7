import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type Reply, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from '../webhooks/support/receiver.js';
import { cursorsOf, merchantWithEverything, type MerchantObjects } from './support/fixtures.js';
import { operationsOf } from './support/openapi-ops.js';

/**
 * Cross-merchant access (the "Proof" issue, part 3): merchant B presents merchant A's ids on every
 * id-bearing route. Each answer must be exactly what an id that never existed gets — 404 NOT_FOUND, an
 * empty filtered list, `customerId: not found`, `after: invalid cursor` — and A's objects stay as they were.
 */
let t: TestContext;
let receiver: Receiver;
let a: MerchantObjects;
let b: { id: string; key: string };
const exercised = new Set<string>();

/** What A sees of everything it owns (the cross-merchant calls must not change any of it). */
async function viewOfA() {
  const get = async (url: string) => {
    const res = await t.request('GET', url, { key: a.merchant.key });
    expect(res.status, url).toBe(200);
    return res.body;
  };
  const charges = [a.pendingChargeId, a.paidChargeId, a.refundedChargeId, a.disputedChargeId];
  return {
    balance: await get('/me/balance'),
    customer: await get(`/customers/${a.customerId}`),
    charges: await Promise.all(charges.map((id) => get(`/transparents/check?id=${id}`))),
    withdrawal: await get(`/withdrawals/${a.withdrawalId}`),
    endpoint: await get(`/webhooks/${a.endpointId}`),
    checkouts: await Promise.all([a.checkoutId, a.paidCheckoutId].map((id) => get(`/checkouts/${id}`))),
    link: await get(`/payment-links/${a.linkId}`),
    deliveries: await get(`/webhooks/${a.endpointId}/deliveries?limit=100`),
    lists: await Promise.all(['/customers', '/transparents/list', '/withdrawals', '/webhooks'].map((l) => get(`${l}?limit=100`))),
  };
}

const asB = (method: string, url: string, body?: unknown) => t.request(method, url, { key: b.key, body });

/** B's answer for A's id must equal B's answer for an id that never existed (the id itself aside). */
async function sameAsUnknown(op: string, method: string, url: (id: string) => string, id: string, unknown: string, body?: unknown) {
  exercised.add(op);
  const theirs = await asB(method, url(id), body);
  const never = await asB(method, url(unknown), body);
  const scrub = (r: Reply, x: string) => ({ status: r.status, body: JSON.parse(r.raw.split(x).join('<id>')) });
  expect(scrub(theirs, id), `${op} with ${id}`).toEqual(scrub(never, unknown));
  return theirs;
}

function expectNotFound(res: Reply) {
  expect(res.status).toBe(404);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'success']);
  expect(res.body).toMatchObject({ error: 'NOT_FOUND', success: false });
}

beforeAll(async () => {
  t = await createTestContext({ SIM_REFUND_DELAY_MS: '3600000', SIM_PAYOUT_DELAY_MS: '3600000' });
  receiver = await new Receiver().start();
  a = await merchantWithEverything(t, receiver.url(receiver.path()));
  // A second item in every list of A's, so each list has a `next` cursor to steal.
  await t.request('POST', '/customers', { key: a.merchant.key, body: { email: 'second@example.com' } });
  await t.request('POST', '/webhooks', { key: a.merchant.key, body: { url: receiver.url(receiver.path()), events: ['CHARGE_PAID'] } });
  b = await t.merchant();
  // Settled: the withdrawal left PENDING for the provider, and A's endpoint has its deliveries.
  await eventually(async () => (await t.request('GET', `/withdrawals/${a.withdrawalId}`, { key: a.merchant.key })).body.data.status !== 'PENDING');
  await eventually(async () => {
    const { rows } = await t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'webhooks.deliver'");
    return rows[0]!.n === 0;
  });
  expect((await t.request('GET', `/webhooks/${a.endpointId}/deliveries`, { key: a.merchant.key })).body.data.length).toBeGreaterThanOrEqual(2);
});
afterAll(async () => {
  await t?.close();
  await receiver?.stop();
});

describe('merchant B with merchant A\'s ids', () => {
  it('every id-bearing merchant route answers as for an id that never existed; A\'s objects are unchanged', async () => {
    const before = await viewOfA();
    const charges = [a.pendingChargeId, a.paidChargeId, a.refundedChargeId, a.disputedChargeId];

    for (const method of ['GET', 'DELETE']) {
      expectNotFound(await sameAsUnknown(`${method} /customers/{id}`, method, (id) => `/customers/${id}`, a.customerId, 'cust_0000000000000000000000'));
    }
    for (const id of charges) {
      expectNotFound(await sameAsUnknown('GET /transparents/check', 'GET', (x) => `/transparents/check?id=${x}`, id, 'chg_0000000000000000000000'));
      expectNotFound(await sameAsUnknown('POST /transparents/refund', 'POST', (x) => `/transparents/refund?id=${x}`, id, 'chg_0000000000000000000000'));
    }
    expectNotFound(await sameAsUnknown('GET /withdrawals/{id}', 'GET', (id) => `/withdrawals/${id}`, a.withdrawalId, 'wd_0000000000000000000000'));
    for (const [op, method, url] of [
      ['GET /webhooks/{id}', 'GET', (id: string) => `/webhooks/${id}`],
      ['GET /webhooks/{id}/deliveries', 'GET', (id: string) => `/webhooks/${id}/deliveries`],
      ['DELETE /webhooks/{id}', 'DELETE', (id: string) => `/webhooks/${id}`],
    ] as const) {
      expectNotFound(await sameAsUnknown(op, method, url, a.endpointId, 'whk_0000000000000000000000'));
    }

    // List filters by id are filters: B's list holds none of A's objects, exactly as for an unknown id.
    for (const id of charges) {
      const res = await sameAsUnknown('GET /transparents/list', 'GET', (x) => `/transparents/list?id=${x}`, id, 'chg_0000000000000000000000');
      expect([res.status, res.body.data, res.body.pagination]).toEqual([200, [], { hasMore: false, next: null, before: null }]);
    }
    const customers = await sameAsUnknown('GET /customers', 'GET', (x) => `/customers?id=${x}`, a.customerId, 'cust_0000000000000000000000');
    expect([customers.status, customers.body.data]).toEqual([200, []]);

    // A's customer is not B's to charge.
    exercised.add('POST /transparents/create');
    const charge = await asB('POST', '/transparents/create', { method: 'PIX', amount: 1000, customerId: a.customerId });
    expect({ status: charge.status, ...charge.body }).toEqual({ status: 400, error: 'VALIDATION_ERROR', message: 'customerId: not found', success: false });

    expect(await viewOfA()).toEqual(before);
    await t.assertLedger();
  });

  it('cursors from A\'s lists are invalid for B, forward and backward', async () => {
    const before = await viewOfA();
    const lists = ['/customers', '/transparents/list', '/withdrawals', '/webhooks', `/webhooks/${a.endpointId}/deliveries`];
    const nexts = await cursorsOf(t, a.merchant.key, a.endpointId);
    expect(Object.keys(nexts).sort()).toEqual(lists.filter((l) => l !== '/withdrawals').sort()); // one withdrawal at a time
    const invalid = (dir: string) => ({ status: 400, error: 'VALIDATION_ERROR', message: `${dir}: invalid cursor`, success: false });
    for (const [list, next] of Object.entries(nexts)) {
      // A's `before` cursor: from A's second page.
      const second = await t.request('GET', `${list}?limit=1&after=${next}`, { key: a.merchant.key });
      expect(second.status).toBe(200);
      const back = second.body.pagination.before as string;
      // B uses them on its own list of the same kind, and on every other list.
      const bLists = ['/customers', '/transparents/list', '/withdrawals', '/webhooks'];
      for (const target of bLists) {
        const fwd = await asB('GET', `${target}?after=${next}`);
        expect({ status: fwd.status, ...fwd.body }, `${list} next on B's ${target}`).toEqual(invalid('after'));
        const bwd = await asB('GET', `${target}?before=${back}`);
        expect({ status: bwd.status, ...bwd.body }, `${list} before on B's ${target}`).toEqual(invalid('before'));
      }
    }
    // A's own cursor still works for A (the test would pass vacuously otherwise).
    const mine = await t.request('GET', `/customers?limit=1&after=${nexts['/customers']}`, { key: a.merchant.key });
    expect([mine.status, mine.body.data.length]).toEqual([200, 1]);
    expect(await viewOfA()).toEqual(before);
  });

  it('an Idempotency-Key is B\'s own: A\'s stored answer under the same key is never replayed to B', async () => {
    const body = { email: 'same@example.com', name: 'Same' };
    const first = await t.request('POST', '/customers', { key: a.merchant.key, body, headers: { 'idempotency-key': 'shared-key' } });
    const other = await t.request('POST', '/customers', { key: b.key, body, headers: { 'idempotency-key': 'shared-key' } });
    expect([first.status, other.status]).toEqual([201, 201]);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.data.id).not.toBe(first.body.data.id);
    expectNotFound(await asB('GET', `/customers/${first.body.data.id}`));
  });

  it("team and API key routes (a session only), simulate-payment: B with A's user, key and charge ids gets what unknown ids get, 404", async () => {
    const userOfA = await t.user(a.merchant.id);
    const ownerOfB = await t.user(b.id);
    const cases: Array<[string, string, (id: string) => string, string, unknown]> = [
      ['PATCH /me/users/{id}', 'PATCH', (id) => `/me/users/${id}`, userOfA.id, { role: 'VIEWER' }],
      ['DELETE /me/users/{id}', 'DELETE', (id) => `/me/users/${id}`, userOfA.id, undefined],
      ['DELETE /me/api-keys/{id}', 'DELETE', (id) => `/me/api-keys/${id}`, a.merchant.keyId, undefined],
    ];
    for (const [op, method, url, id, body] of cases) {
      exercised.add(op);
      const theirs = await t.request(method, url(id), { key: ownerOfB.token, body });
      const never = await t.request(method, url(id.replace(/_.*/, '_unknown0000000000000000')), { key: ownerOfB.token, body });
      expectNotFound(theirs);
      expect(theirs.body.message, op).toBe(never.body.message);
    }
    expectNotFound(await sameAsUnknown('POST /transparents/simulate-payment', 'POST', (id) => `/transparents/simulate-payment?id=${id}`, a.pendingChargeId, `chg_${'0'.repeat(22)}`));
    expect((await t.request('GET', `/transparents/check?id=${a.pendingChargeId}`, { key: a.merchant.key })).body.data.status).toBe('PENDING');
    const team = await t.request('GET', '/me/users', { key: userOfA.token });
    expect(team.body.data.find((u: { id: string }) => u.id === userOfA.id)?.role).toBe('OWNER');
  });

  it("webhook operations and events (docs/contract/webhooks.md#webhook-operations): B with A's endpoint and event ids gets what unknown ids get; A's endpoint, secret and events unchanged", async () => {
    const before = await viewOfA();
    const eventsOfA = async () => (await t.request('GET', '/events?limit=100', { key: a.merchant.key })).body;
    const eventsBefore = await eventsOfA();
    const eventId = eventsBefore.data.find((e: { deliveries: { succeeded: number } }) => e.deliveries.succeeded > 0).id as string;
    const operations: Array<[string, unknown]> = [
      ['test', undefined], ['redeliver', { eventId }], ['recover', { since: new Date(0).toISOString() }], ['rotate-secret', { expiresInSeconds: 0 }],
    ];
    for (const [op, body] of operations) {
      expectNotFound(await sameAsUnknown(`POST /webhooks/{id}/${op}`, 'POST', (id) => `/webhooks/${id}/${op}`, a.endpointId, 'whk_0000000000000000000000', body));
    }
    expectNotFound(await sameAsUnknown('GET /events/{id}', 'GET', (id) => `/events/${id}`, eventId, 'evt_0000000000000000000000'));
    // A's event redelivered to B's own endpoint: exactly as an event that never existed.
    const own = (await asB('POST', '/webhooks', { url: receiver.url(receiver.path()), events: ['CHARGE_PAID'] })).body.data.id as string;
    const theirs = await asB('POST', `/webhooks/${own}/redeliver`, { eventId });
    const never = await asB('POST', `/webhooks/${own}/redeliver`, { eventId: 'evt_0000000000000000000000' });
    expect([theirs.status, theirs.body]).toEqual([400, { error: 'VALIDATION_ERROR', message: 'eventId: not delivered to this endpoint', success: false }]);
    expect(theirs.body).toEqual(never.body);
    expect((await asB('GET', '/events?limit=100')).body.data.map((e: { id: string }) => e.id)).not.toContain(eventId);
    expect(await viewOfA()).toEqual(before);
    expect(await eventsOfA()).toEqual(eventsBefore);
  });

  it("checkouts and payment links (docs/contract/checkouts.md#checkouts): B with A's ids gets what unknown ids get, 404; A's checkouts and link unchanged", async () => {
    const before = await viewOfA();
    for (const id of [a.checkoutId, a.paidCheckoutId]) {
      expectNotFound(await sameAsUnknown('GET /checkouts/{id}', 'GET', (x) => `/checkouts/${x}`, id, 'chk_0000000000000000000000'));
      expectNotFound(await sameAsUnknown('POST /checkouts/{id}/refund', 'POST', (x) => `/checkouts/${x}/refund`, id, 'chk_0000000000000000000000'));
    }
    expectNotFound(await sameAsUnknown('GET /payment-links/{id}', 'GET', (x) => `/payment-links/${x}`, a.linkId, 'plk_0000000000000000000000'));
    expectNotFound(await sameAsUnknown('PATCH /payment-links/{id}', 'PATCH', (x) => `/payment-links/${x}`, a.linkId, 'plk_0000000000000000000000', { active: false }));
    expectNotFound(await sameAsUnknown('GET /payment-links/{id}/qr-code', 'GET', (x) => `/payment-links/${x}/qr-code`, a.linkId, 'plk_0000000000000000000000'));
    // A's link as B's list filter: an empty page, as for a link that never existed.
    const list = await sameAsUnknown('GET /checkouts', 'GET', (x) => `/checkouts?paymentLinkId=${x}`, a.linkId, 'plk_0000000000000000000000');
    expect([list.status, list.body.data]).toEqual([200, []]);
    expect(await viewOfA()).toEqual(before);
    await t.assertLedger();
  });

  it("subscriptions (docs/contract/subscriptions.md#subscriptions): B with A's ids gets what unknown ids get, 404; A's subscriptions unchanged", async () => {
    const subs = [a.subscriptionId, a.activeSubscriptionId, a.variableSubscriptionId];
    const view = async () => Promise.all([
      ...subs.map(async (id) => (await t.request('GET', `/subscriptions/${id}`, { key: a.merchant.key })).body),
      ...subs.map(async (id) => (await t.request('GET', `/subscriptions/${id}/charges`, { key: a.merchant.key })).body),
    ]);
    const before = await view();
    const unknown = 'sub_0000000000000000000000';
    for (const id of subs) {
      expectNotFound(await sameAsUnknown('GET /subscriptions/{id}', 'GET', (x) => `/subscriptions/${x}`, id, unknown));
      expectNotFound(await sameAsUnknown('GET /subscriptions/{id}/charges', 'GET', (x) => `/subscriptions/${x}/charges`, id, unknown));
      expectNotFound(await sameAsUnknown('POST /subscriptions/{id}/cancel', 'POST', (x) => `/subscriptions/${x}/cancel`, id, unknown));
      expectNotFound(await sameAsUnknown('POST /subscriptions/{id}/charges', 'POST', (x) => `/subscriptions/${x}/charges`, id, unknown,
        { amount: 1_500, dueDate: a.variableDueDate }));
    }
    // A's customer is not B's to subscribe, and B's list holds none of A's subscriptions.
    exercised.add('POST /subscriptions');
    const created = await asB('POST', '/subscriptions', { customerId: a.customerId, amount: 1_000, frequency: 'MONTHLY', startDate: '2030-01-15', contract: 'x', journey: 'QR' });
    expect({ status: created.status, ...created.body }).toEqual({ status: 400, error: 'VALIDATION_ERROR', message: 'customerId: not found', success: false });
    expect((await asB('GET', '/subscriptions?limit=100')).body.data).toEqual([]);
    expect(await view()).toEqual(before);
  });

  it('covers every id-bearing merchant route of the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const idRoutes = operationsOf(doc)
      .filter((o) => o.auth === 'merchant' && o.params.some((p) => p.name === 'id'))
      .map((o) => o.name);
    expect(idRoutes.length).toBeGreaterThanOrEqual(10);
    expect(idRoutes.filter((r) => !exercised.has(r))).toEqual([]);
  });
});
