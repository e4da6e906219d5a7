// docs/contract/customers.md over HTTP (the tax id: docs/contract/customers.md#customer-tax-id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, expectOk, idOf, ISO_MS, keys, type M } from './support.js';

let t: TestContext;
let m: M;
beforeAll(async () => {
  t = await createTestContext();
  m = await t.merchant();
});
afterAll(() => t?.close());

const create = (body: unknown, x: M = m) => t.request('POST', '/customers', { key: x.key, body });
const CUSTOMER_KEYS = ['createdAt', 'email', 'id', 'name', 'phone', 'taxId'];

describe('customers', () => {
  it('create: 201 {id, email, name, taxId, phone, createdAt}; absent optional fields are null; get and list show the same', async () => {
    const full = expectOk(await create({ email: 'ana@example.com', name: 'Ana', taxId: '52998224725', phone: '+5511999999999' }), 201);
    expect(keys(full)).toEqual(CUSTOMER_KEYS);
    expect(full).toMatchObject({ email: 'ana@example.com', name: 'Ana', taxId: '52998224725', phone: '+5511999999999' });
    expect(full.id).toMatch(idOf('cust'));
    expect(full.createdAt).toMatch(ISO_MS);
    const bare = expectOk(await create({ email: 'bare@example.com' }), 201);
    expect(bare).toEqual({ id: bare.id, email: 'bare@example.com', name: null, taxId: null, phone: null, createdAt: bare.createdAt });
    expect(expectOk(await t.request('GET', `/customers/${full.id}`, { key: m.key }))).toEqual(full);
    expect(expectOk(await t.request('GET', `/customers?id=${full.id}`, { key: m.key }))).toEqual([full]);
  });

  it('taxId: CPF 11 or CNPJ 14 digits with valid check digits, returned unmasked', async () => {
    expect(expectOk(await create({ email: 'c@example.com', taxId: '11222333000181' }), 201).taxId).toBe('11222333000181');
    for (const taxId of ['52998224726', '11111111111', '00000000000000', '529.982.247-25', '5299822472', '123456789012', '11222333000182', '']) {
      const res = await create({ email: 'c@example.com', taxId });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message.startsWith('taxId: ')).toBe(true);
    }
  });

  it.each([
    [{}, 'email: is required'],
    [{ email: 'not-an-email' }, 'email: must be a valid e-mail'],
    [{ email: 5 }, 'email: must be a string'],
    [{ email: 'a@example.com', name: '' }, 'name: must have at least 1 character'],
    [{ email: 'a@example.com', name: 'x'.repeat(121) }, 'name: must have at most 120 characters'],
    [{ email: 'a@example.com', phone: '1'.repeat(21) }, 'phone: must have at most 20 characters'],
  ])('%j → %s', async (body, message) => {
    expectError(await create(body), 400, 'VALIDATION_ERROR', message);
  });

  it('limits accepted at their bounds: name 1 and 120, phone 20', async () => {
    expectOk(await create({ email: 'a@example.com', name: 'x', phone: '1'.repeat(20) }), 201);
    expectOk(await create({ email: 'a@example.com', name: 'x'.repeat(120) }), 201);
  });

  it('taxId unique per merchant among active customers: 409 CONFLICT; free again once deleted; other merchants unaffected', async () => {
    const first = expectOk(await create({ email: 'u@example.com', taxId: '39053344705' }), 201);
    expectError(await create({ email: 'v@example.com', taxId: '39053344705' }), 409, 'CONFLICT');
    const x = await t.merchant();
    expectOk(await create({ email: 'u@example.com', taxId: '39053344705' }, x), 201);
    const del = await t.request('DELETE', `/customers/${first.id}`, { key: m.key });
    expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { data: null, error: null, success: true } });
    expectOk(await create({ email: 'w@example.com', taxId: '39053344705' }), 201);
  });

  it('soft delete: gone from get, list and a second delete (404); another merchant\'s id is 404', async () => {
    const c = expectOk(await create({ email: 'gone@example.com' }), 201);
    const x = await t.merchant();
    expectError(await t.request('GET', `/customers/${c.id}`, { key: x.key }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/customers/${c.id}`, { key: x.key }), 404, 'NOT_FOUND');
    expectOk(await t.request('DELETE', `/customers/${c.id}`, { key: m.key }));
    expectError(await t.request('GET', `/customers/${c.id}`, { key: m.key }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/customers/${c.id}`, { key: m.key }), 404, 'NOT_FOUND');
    expect(expectOk(await t.request('GET', `/customers?id=${c.id}`, { key: m.key }))).toEqual([]);
    expectError(await t.request('GET', '/customers/cust_nope', { key: m.key }), 404, 'NOT_FOUND');
  });

  it('list filters id, email and taxId', async () => {
    const x = await t.merchant();
    const a = expectOk(await create({ email: 'a@example.com', taxId: '52998224725' }, x), 201);
    const b = expectOk(await create({ email: 'b@example.com' }, x), 201);
    const list = async (q: string) => (expectOk(await t.request('GET', `/customers?${q}`, { key: x.key })) as Array<{ id: string }>).map((c) => c.id);
    expect(await list('')).toEqual([b.id, a.id]);
    expect(await list(`id=${a.id}`)).toEqual([a.id]);
    expect(await list('email=b@example.com')).toEqual([b.id]);
    expect(await list('taxId=52998224725')).toEqual([a.id]);
    expect(await list('email=nobody@example.com')).toEqual([]);
  });
});
