// docs/contract/http.md#pagination and docs/contract/http.md#cursors on every list: charges, customers, withdrawals, webhooks, deliveries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { Receiver } from '../webhooks/support/receiver.js';
import { createCharge, expectError, expectOk, fund, type M } from './support.js';

let t: TestContext;
let m: M;
let other: M;
let receiver: Receiver;
let endpointId: string;
const lists: Record<string, string> = {};
const N = 5;

beforeAll(async () => {
  t = await createTestContext();
  receiver = await new Receiver().start();
  m = await t.merchant();
  other = await t.merchant();
  const hook = expectOk(await t.request('POST', '/webhooks', { key: m.key, body: { url: receiver.url(receiver.path()), events: ['CHARGE_CREATED'] } }), 201);
  endpointId = hook.id;
  await fund(t, m, 100_000);
  for (let i = 0; i < N; i++) {
    expectOk(await t.request('POST', '/customers', { key: m.key, body: { email: `c${i}@example.com` } }), 201);
    await createCharge(t, m, { amount: 100 + i });
    if (i > 0) expectOk(await t.request('POST', '/webhooks', { key: m.key, body: { url: receiver.url(receiver.path()), events: ['CHARGE_PAID'] } }), 201);
    const w = expectOk(await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 100 + i, pixKey: 'a@example.com', pixKeyType: 'EMAIL' } }), 201);
    expectOk(await t.admin('POST', `/admin/simulator/withdrawals/${w.id}/complete`));
  }
  // N charges created after the endpoint, plus the funding charge: N + 1 deliveries.
  await eventually(async () => (await t.request('GET', `/webhooks/${endpointId}/deliveries?limit=100`, { key: m.key })).body.data.length === N + 1);
  Object.assign(lists, {
    charges: '/transparents/list', customers: '/customers', withdrawals: '/withdrawals', webhooks: '/webhooks',
    deliveries: `/webhooks/${endpointId}/deliveries`,
  });
});
afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

const page = async (url: string, query: string, key = m.key) => {
  const res = await t.request('GET', `${url}?${query}`, { key });
  expectOk(res);
  return { ids: (res.body.data as Array<{ id: string }>).map((x) => x.id), items: res.body.data as any[], p: res.body.pagination };
};

describe.each(['charges', 'customers', 'withdrawals', 'webhooks', 'deliveries'])('%s', (name) => {
  it('newest first (createdAt desc, then id desc); forward walk returns every item once; last page next null', async () => {
    const url = lists[name]!;
    const all = await page(url, 'limit=100');
    expect(all.p).toEqual({ hasMore: false, next: null, before: null });
    const sorted = [...all.items].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
    expect(all.ids).toEqual(sorted.map((x) => x.id));
    const walked: string[] = [];
    let cur = await page(url, 'limit=2');
    expect(cur.p.before).toBeNull();
    for (let guard = 0; ; guard++) {
      walked.push(...cur.ids);
      if (!cur.p.hasMore) break;
      expect(typeof cur.p.next).toBe('string');
      cur = await page(url, `limit=2&after=${cur.p.next}`);
      expect(typeof cur.p.before).toBe('string');
      expect(guard).toBeLessThan(10);
    }
    expect(cur.p.next).toBeNull();
    expect(walked).toEqual(all.ids);
  });

  it('forward then back returns exactly the earlier page; the first page has before null and hasMore false backward', async () => {
    const url = lists[name]!;
    const p1 = await page(url, 'limit=2');
    expect(p1.p).toMatchObject({ hasMore: true, before: null });
    const p2 = await page(url, `limit=2&after=${p1.p.next}`);
    expect(p2.p.hasMore).toBe(true);
    const back = await page(url, `limit=2&before=${p2.p.before}`);
    expect(back.ids).toEqual(p1.ids);
    expect(back.p.hasMore).toBe(false);
    expect(back.p.before).toBeNull();
    expect(typeof back.p.next).toBe('string');
    expect((await page(url, `limit=2&after=${back.p.next}`)).ids).toEqual(p2.ids);
  });

  it('cursor errors: tampered, empty, oversized, another merchant, next given as before, after with before', async () => {
    const url = lists[name]!;
    const { p } = await page(url, 'limit=1');
    const next = p.next as string;
    const tampered = next.slice(0, 5) + (next[5] === 'A' ? 'B' : 'A') + next.slice(6);
    for (const [q, message] of [
      [`after=${tampered}`, 'after: invalid cursor'],
      ['after=', 'after: invalid cursor'],
      ['before=', 'before: invalid cursor'],
      [`after=${'a'.repeat(600)}`, 'after: invalid cursor'],
      [`after=${next}x`, 'after: invalid cursor'],
      [`before=${next}`, 'before: invalid cursor'],
    ] as const) {
      expectError(await t.request('GET', `${url}?${q}`, { key: m.key }), 400, 'VALIDATION_ERROR', message);
    }
    expectError(await t.request('GET', `${url}?after=${next}&before=${next}`, { key: m.key }), 400, 'VALIDATION_ERROR');
    if (name !== 'deliveries') {
      expectError(await t.request('GET', `${url}?after=${next}`, { key: other.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    }
  });

  it('a cursor from any other list is invalid here', async () => {
    for (const [otherName, otherUrl] of Object.entries(lists)) {
      if (otherName === name) continue;
      const { p } = await page(otherUrl, 'limit=1');
      expectError(await t.request('GET', `${lists[name]}?after=${p.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    }
  });
});

describe('cursors are bound to filters and to the endpoint', () => {
  it('changing a filter invalidates the cursor', async () => {
    const charges = await page('/transparents/list', 'limit=1');
    expectError(await t.request('GET', `/transparents/list?status=PENDING&after=${charges.p.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    const pending = await page('/transparents/list', 'limit=1&status=PENDING');
    expect((await page('/transparents/list', `limit=1&status=PENDING&after=${pending.p.next}`)).items.every((c) => c.status === 'PENDING')).toBe(true);
    expectError(await t.request('GET', `/transparents/list?after=${pending.p.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    const wds = await page('/withdrawals', 'limit=1&status=COMPLETED');
    expectError(await t.request('GET', `/withdrawals?status=FAILED&after=${wds.p.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    const custs = await page('/customers', 'limit=1');
    expectError(await t.request('GET', `/customers?email=c1@example.com&after=${custs.p.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
  });

  it('a deliveries cursor of one endpoint is invalid on another', async () => {
    const d = await page(lists.deliveries!, 'limit=1');
    const second = (await page('/webhooks', 'limit=1')).ids[0]!;
    expectError(await t.request('GET', `/webhooks/${second}/deliveries?after=${d.p.next}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
  });
});

describe('limits and concurrent inserts', () => {
  it('limit defaults to 20', async () => {
    const x = await t.merchant();
    for (let i = 0; i < 21; i++) expectOk(await t.request('POST', '/customers', { key: x.key, body: { email: `d${i}@example.com` } }), 201);
    const first = await page('/customers', '', x.key);
    expect(first.ids).toHaveLength(20);
    expect(first.p.hasMore).toBe(true);
    expect((await page('/customers', `after=${first.p.next}`, x.key)).ids).toHaveLength(1);
    expect((await page('/customers', 'limit=100', x.key)).ids).toHaveLength(21);
  });

  it('items created while paging are neither skipped nor repeated', async () => {
    const x = await t.merchant();
    for (let i = 0; i < 4; i++) expectOk(await t.request('POST', '/customers', { key: x.key, body: { email: `e${i}@example.com` } }), 201);
    const before = (await page('/customers', 'limit=100', x.key)).ids;
    const p1 = await page('/customers', 'limit=2', x.key);
    for (let i = 0; i < 3; i++) expectOk(await t.request('POST', '/customers', { key: x.key, body: { email: `f${i}@example.com` } }), 201);
    const p2 = await page('/customers', `limit=2&after=${p1.p.next}`, x.key);
    expect([...p1.ids, ...p2.ids]).toEqual(before);
    expect(p2.p).toMatchObject({ hasMore: false, next: null });
  });
});

describe('an empty page past a cursor', () => {
  // Customers: a deletion empties the page the cursor pointed into, while items remain on the other side.
  const customer = async (key: string, email: string) => expectOk(await t.request('POST', '/customers', { key, body: { email } }), 201).id as string;
  const remove = async (key: string, id: string) => expectOk(await t.request('DELETE', `/customers/${id}`, { key }));

  it('after: points back with before when items precede, else null', async () => {
    const x = await t.merchant();
    const [, b] = [await customer(x.key, 'g0@example.com'), await customer(x.key, 'g1@example.com')];
    const p1 = await page('/customers', 'limit=1', x.key); // [b]
    const older = (await page('/customers', `limit=1&after=${p1.p.next}`, x.key)).ids[0]!;
    await remove(x.key, older);
    const empty = await page('/customers', `limit=1&after=${p1.p.next}`, x.key);
    expect(empty.ids).toEqual([]);
    expect(empty.p).toMatchObject({ hasMore: false, next: null, before: expect.any(String) });
    expect((await page('/customers', `limit=5&before=${empty.p.before}`, x.key)).ids).toEqual([b]);
    await remove(x.key, b);
    expect((await page('/customers', `limit=1&after=${p1.p.next}`, x.key)).p).toEqual({ hasMore: false, next: null, before: null });
  });

  it('before: points on with next when items follow, else null', async () => {
    const x = await t.merchant();
    const a = await customer(x.key, 'h0@example.com');
    await customer(x.key, 'h1@example.com');
    const p1 = await page('/customers', 'limit=1', x.key);
    const p2 = await page('/customers', `limit=1&after=${p1.p.next}`, x.key); // [a]
    await remove(x.key, p1.ids[0]!);
    const empty = await page('/customers', `limit=1&before=${p2.p.before}`, x.key);
    expect(empty.ids).toEqual([]);
    expect(empty.p).toMatchObject({ hasMore: false, before: null, next: expect.any(String) });
    expect((await page('/customers', `limit=5&after=${empty.p.next}`, x.key)).ids).toEqual([a]);
  });
});

describe('limit in the query string', () => {
  it('is read only as a plain decimal number', async () => {
    for (const bad of ['0x10', '0b11', '1e1', '%201', '%20%20', '1.5', 'abc']) {
      expectError(await t.request('GET', `/customers?limit=${bad}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'limit: must be an integer');
    }
    expect((await page('/customers', 'limit=2', m.key)).ids).toHaveLength(2);
    expect((await page('/customers', 'limit=2.0', m.key)).ids).toHaveLength(2);
    expectError(await t.request('GET', '/customers?limit=0', { key: m.key }), 400, 'VALIDATION_ERROR', 'limit: must be >= 1');
  });
});
