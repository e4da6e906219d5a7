import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, validTaxId, type Merchant } from '../charges/support.js';

let t: TestContext;
let m: Merchant;
beforeAll(async () => {
  t = await createTestContext();
  m = await t.merchant();
});
afterAll(async () => { await t?.close(); });

const create = (body: unknown, key = m.key) => t.request('POST', '/customers', { key, body });
const CUSTOMER_KEYS = ['createdAt', 'email', 'id', 'name', 'phone', 'taxId'];

describe('POST /customers', () => {
  it('creates a customer with every field and answers 201', async () => {
    const taxId = validTaxId('CPF');
    const res = await create({ email: 'ana@example.com', name: 'Ana', taxId, phone: '+5511999990000' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.error).toBeNull();
    expect(Object.keys(res.body.data).sort()).toEqual(CUSTOMER_KEYS);
    expect(res.body.data).toMatchObject({ email: 'ana@example.com', name: 'Ana', taxId, phone: '+5511999990000' });
    expect(res.body.data.id).toMatch(/^cust_[A-Za-z0-9]{22}$/);
    expect(res.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('shows absent optional fields as null', async () => {
    const res = await create({ email: 'only@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: null, taxId: null, phone: null });
  });

  it('accepts a CNPJ (14 digits) and tells it from a CPF by length', async () => {
    const cnpj = validTaxId('CNPJ');
    const res = await create({ email: 'co@example.com', taxId: cnpj });
    expect(res.status).toBe(201);
    expect(res.body.data.taxId).toBe(cnpj);
  });

  it.each([
    [{}, 'email: is required'],
    [{ email: 'not-an-email' }, 'email: must be a valid e-mail'],
    [{ email: 'a@example.com', name: '' }, 'name: must have at least 1 character'],
    [{ email: 'a@example.com', name: 'x'.repeat(121) }, 'name: must have at most 120 characters'],
    [{ email: 'a@example.com', phone: '1'.repeat(21) }, 'phone: must have at most 20 characters'],
    [{ email: 'a@example.com', taxId: '5299822472' }, 'taxId: must be 11 (CPF) or 14 (CNPJ) digits'],
    [{ email: 'a@example.com', taxId: '529.982.247-25' }, 'taxId: must be 11 (CPF) or 14 (CNPJ) digits'],
    [{ email: 'a@example.com', taxId: '11.222.333/0001-81' }, 'taxId: must be 11 (CPF) or 14 (CNPJ) digits'],
    [{ email: 'a@example.com', taxId: '529982247251' }, 'taxId: must be 11 (CPF) or 14 (CNPJ) digits'],
    [{ email: 'a@example.com', taxId: '52998224726' }, 'taxId: invalid CPF'],
    [{ email: 'a@example.com', taxId: '11111111111' }, 'taxId: invalid CPF'],
    [{ email: 'a@example.com', taxId: '11222333000182' }, 'taxId: invalid CNPJ'],
    [{ email: 'a@example.com', taxId: 52998224725 }, 'taxId: must be a string'],
  ])('rejects %j with VALIDATION_ERROR', async (body, message) => {
    expectError(await create(body), 400, 'VALIDATION_ERROR', message);
  });

  it('answers 409 CONFLICT for a taxId already active for the merchant, but not for another merchant', async () => {
    const taxId = validTaxId();
    expect((await create({ email: 'a@example.com', taxId })).status).toBe(201);
    expectError(await create({ email: 'b@example.com', taxId }), 409, 'CONFLICT');
    const other = await t.merchant();
    expect((await create({ email: 'a@example.com', taxId }, other.key)).status).toBe(201);
  });

  it('lets exactly one of two concurrent creates with the same taxId win', async () => {
    const taxId = validTaxId();
    const results = await Promise.all([create({ email: 'a@example.com', taxId }), create({ email: 'b@example.com', taxId })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('allows delete and create again with the same taxId', async () => {
    const taxId = validTaxId();
    const first = await create({ email: 'a@example.com', taxId });
    const del = await t.request('DELETE', `/customers/${first.body.data.id}`, { key: m.key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: null, error: null, success: true });
    const again = await create({ email: 'a2@example.com', taxId });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it('replays the first answer for the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `cust-${validTaxId()}` };
    const body = { email: 'idem@example.com', taxId: validTaxId() };
    const a = await t.request('POST', '/customers', { key: m.key, body, headers });
    const b = await t.request('POST', '/customers', { key: m.key, body, headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
  });
});

describe('GET /customers/{id} and DELETE', () => {
  it('gets a customer; another merchant gets 404', async () => {
    const c = (await create({ email: 'get@example.com', name: 'Get' })).body.data;
    const res = await t.request('GET', `/customers/${c.id}`, { key: m.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: c, error: null, success: true });
    const other = await t.merchant();
    expectError(await t.request('GET', `/customers/${c.id}`, { key: other.key }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/customers/${c.id}`, { key: other.key }), 404, 'NOT_FOUND');
    expect((await t.request('GET', `/customers/${c.id}`, { key: m.key })).status).toBe(200);
  });

  it('a deleted customer is 404 for GET and a second DELETE, and leaves the list', async () => {
    const c = (await create({ email: 'del@example.com' })).body.data;
    expect((await t.request('DELETE', `/customers/${c.id}`, { key: m.key })).status).toBe(200);
    expectError(await t.request('GET', `/customers/${c.id}`, { key: m.key }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/customers/${c.id}`, { key: m.key }), 404, 'NOT_FOUND');
    const list = await t.request('GET', `/customers?id=${c.id}`, { key: m.key });
    expect(list.body.data).toEqual([]);
  });

  it('unknown id is 404', async () => {
    expectError(await t.request('GET', '/customers/cust_nope', { key: m.key }), 404, 'NOT_FOUND');
  });
});

/** The list order (docs/contract/http.md#pagination): createdAt descending, then id descending — two
 *  creates in one millisecond share a createdAt, and their random ids decide, not the order they were made. */
const newestFirst = (made: { id: string; createdAt: string }[]) =>
  [...made].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)).map((c) => c.id);

describe('GET /customers', () => {
  it('filters by id, email (case-insensitive) and taxId, only the merchant\'s own', async () => {
    const own = await t.merchant();
    const taxId = validTaxId();
    const a = (await create({ email: 'Filter@Example.com', taxId }, own.key)).body.data;
    const b = (await create({ email: 'other@example.com' }, own.key)).body.data;
    const list = (q: string) => t.request('GET', `/customers${q}`, { key: own.key });
    expect((await list('')).body.data.map((c: any) => c.id)).toEqual(newestFirst([a, b]));
    expect((await list(`?id=${a.id}`)).body.data).toEqual([a]);
    expect((await list('?email=filter@example.com')).body.data).toEqual([a]);
    expect((await list(`?taxId=${taxId}`)).body.data).toEqual([a]);
    expect((await list(`?taxId=${taxId}&email=other@example.com`)).body.data).toEqual([]);
    expect((await t.request('GET', `/customers?id=${a.id}`, { key: m.key })).body.data).toEqual([]);
  });

  it('pages forward and back with cursors bound to the filters', async () => {
    const own = await t.merchant();
    const made: { id: string; createdAt: string }[] = [];
    for (let i = 0; i < 5; i++) made.push((await create({ email: `p${i}@example.com` }, own.key)).body.data);
    const ids = newestFirst(made);
    const page = (q: string) => t.request('GET', `/customers?${q}`, { key: own.key });
    const p1 = await page('limit=2');
    expect(p1.body.data.map((c: any) => c.id)).toEqual(ids.slice(0, 2));
    expect(p1.body.pagination).toMatchObject({ hasMore: true, before: null });
    const p2 = await page(`limit=2&after=${p1.body.pagination.next}`);
    expect(p2.body.data.map((c: any) => c.id)).toEqual(ids.slice(2, 4));
    const p3 = await page(`limit=2&after=${p2.body.pagination.next}`);
    expect(p3.body.data.map((c: any) => c.id)).toEqual(ids.slice(4));
    expect(p3.body.pagination).toMatchObject({ hasMore: false, next: null });
    const back = await page(`limit=2&before=${p2.body.pagination.before}`);
    expect(back.body.data.map((c: any) => c.id)).toEqual(ids.slice(0, 2));
    expectError(await page(`limit=2&email=x@example.com&after=${p1.body.pagination.next}`), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
  });

  it('validates limit', async () => {
    expectError(await t.request('GET', '/customers?limit=0', { key: m.key }), 400, 'VALIDATION_ERROR', 'limit: must be >= 1');
    expectError(await t.request('GET', '/customers?limit=101', { key: m.key }), 400, 'VALIDATION_ERROR', 'limit: must be <= 100');
  });
});
