// docs/contract/http.md and docs/contract/access.md#credentials over HTTP: envelope, statuses, routing before auth, auth,
// body parsing, numbers, ids and timestamps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { createCharge, expectError, expectOk, fund, idOf, ISO_MS, keys, type M } from './support.js';

let t: TestContext;
let m: M;
beforeAll(async () => {
  t = await createTestContext();
  m = await t.merchant();
});
afterAll(() => t?.close());

const json = { 'content-type': 'application/json' };

describe('routing and envelope', () => {
  it('GET /health answers 200 {status: "ok"} without auth', async () => {
    const res = await t.request('GET', '/health');
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it.each([
    ['GET', '/nope'], ['POST', '/nope'], ['GET', '/v1/me/store'], ['PUT', '/customers'], ['PATCH', '/customers/cust_x'],
    ['DELETE', '/withdrawals/wd_x'], ['GET', '/transparents/refund?id=chg_x'], ['GET', '/transparents/create'],
    ['PUT', '/webhooks/whk_x'], ['POST', '/me/store'], ['DELETE', '/me/balance'], ['HEAD', '/me/store'], ['HEAD', '/customers'],
    ['OPTIONS', '/customers'], ['GET', '/admin/nope'], ['GET', '/admin/simulator/charges/chg_x/pay'],
  ])('%s %s is 404 NOT_FOUND before auth', async (method, url) => {
    const res = await t.request(method, url);
    expect(res.status).toBe(404);
    if (method !== 'HEAD') expectError(res, 404, 'NOT_FOUND');
  });

  it.each([['GET', '/customers/'], ['DELETE', '/customers/'], ['GET', '/webhooks/'], ['GET', '/webhooks//deliveries'], ['GET', '/withdrawals/']])(
    '%s %s (an empty id) is 404 NOT_FOUND, with or without auth', async (method, url) => {
      expectError(await t.request(method, url), 404, 'NOT_FOUND');
      expectError(await t.request(method, url, { key: m.key }), 404, 'NOT_FOUND');
    },
  );

  it('an unknown route is 404 whatever its body (malformed, oversized, other type), with or without auth', async () => {
    expectError(await t.request('POST', '/nope', { payload: '{bad', headers: json }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/nope', { key: m.key, payload: '{bad', headers: json }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/nope', { payload: `{"x":"${'y'.repeat(1_100_000)}"}`, headers: json }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', '/nope', { payload: '<x/>', headers: { 'content-type': 'application/xml' } }), 404, 'NOT_FOUND');
  });

  it('success answers are exactly {data, error: null, success: true}; lists add pagination', async () => {
    const one = await t.request('GET', '/me/balance', { key: m.key });
    expect(keys(one.body)).toEqual(['data', 'error', 'success']);
    expectOk(one);
    const list = await t.request('GET', '/customers', { key: m.key });
    expect(keys(list.body)).toEqual(['data', 'error', 'pagination', 'success']);
    expect(keys(list.body.pagination)).toEqual(['before', 'hasMore', 'next']);
  });
});

describe('authentication (docs/contract/access.md#credentials)', () => {
  it.each([
    ['missing', undefined],
    ['not Bearer', 'Basic abc'],
    ['lower-case scheme', 'bearer pxg_x'],
    ['unknown key', `Bearer pxg_${'a'.repeat(40)}`],
    ['garbage', 'Bearer nope'],
  ])('%s token: 401 UNAUTHORIZED', async (_name, header) => {
    const res = await t.request('GET', '/me/store', { headers: header ? { authorization: header } : {} });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('a revoked key is refused at once; the admin token is not a merchant key and vice versa', async () => {
    const issued = expectOk(await t.admin('POST', `/admin/merchants/${m.id}/api-keys`), 201);
    // Part 23 adds role and createdBy to every key object (docs/contract/access.md#api-keys): the operator's is FULL, made by no user.
    expect(keys(issued)).toEqual(['createdAt', 'createdBy', 'id', 'key', 'last4', 'role']);
    expect(issued).toMatchObject({ role: 'FULL', createdBy: null });
    expect(issued.id).toMatch(idOf('key'));
    expect(issued.key).toMatch(/^pxg_[A-Za-z0-9]{40}$/);
    expect(issued.last4).toBe(issued.key.slice(-4));
    expect(issued.createdAt).toMatch(ISO_MS);
    expectOk(await t.request('GET', '/me/store', { key: issued.key }));
    expectOk(await t.admin('DELETE', `/admin/api-keys/${issued.id}`));
    expectError(await t.request('GET', '/me/store', { key: issued.key }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/admin/merchants', { key: m.key }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/me/store', { headers: { authorization: 'Bearer test-admin-token-of-at-least-32-characters' } }), 401, 'UNAUTHORIZED');
  });

  it('a suspended merchant gets 403 FORBIDDEN on every route', async () => {
    const s = await t.merchant();
    expectOk(await t.admin('PATCH', `/admin/merchants/${s.id}`, { suspended: true }));
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/me/store'], ['GET', '/me/balance'], ['GET', '/customers'], ['POST', '/customers', { email: 'a@example.com' }],
      ['GET', '/customers/cust_x'], ['DELETE', '/customers/cust_x'], ['POST', '/transparents/create', { method: 'PIX', amount: 1000 }],
      ['GET', '/transparents/list'], ['GET', '/transparents/check?id=chg_x'], ['POST', '/transparents/refund?id=chg_x'],
      ['POST', '/withdrawals', { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL' }], ['GET', '/withdrawals'],
      ['GET', '/withdrawals/wd_x'], ['POST', '/webhooks', { url: 'https://example.com/h', events: ['CHARGE_PAID'] }],
      ['GET', '/webhooks'], ['GET', '/webhooks/whk_x'], ['DELETE', '/webhooks/whk_x'], ['GET', '/webhooks/whk_x/deliveries'],
    ];
    for (const [method, url, body] of routes) expectError(await t.request(method, url, { key: s.key, body }), 403, 'FORBIDDEN');
  });
});

describe('bodies and numbers (docs/contract/http.md#routing, docs/contract/http.md#numbers)', () => {
  it('JSON that does not parse: 400 "body: invalid JSON"', async () => {
    expectError(await t.request('POST', '/customers', { key: m.key, payload: '{"email":', headers: json }), 400, 'VALIDATION_ERROR', 'body: invalid JSON');
  });

  it('a value outside a closed set names the set', async () => {
    const merchant = { userName: 'enum', email: 'enum@example.com' };
    expectError(await t.admin('POST', '/admin/merchants', { ...merchant, kyc: { status: 'MAYBE' } }), 400, 'VALIDATION_ERROR',
      'kyc.status: must be one of PENDING, APPROVED, REJECTED');
    expectError(await t.request('GET', '/withdrawals?status=DONE', { key: m.key }), 400, 'VALIDATION_ERROR',
      'status: must be one of PENDING, PROCESSING, COMPLETED, FAILED');
  });

  it('a body over 1 MiB: 413 PAYLOAD_TOO_LARGE', async () => {
    const payload = JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(1024 * 1024) });
    expectError(await t.request('POST', '/customers', { key: m.key, payload, headers: json }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('an empty body with Content-Type: application/json is no body (POST /transparents/refund?id=)', async () => {
    const c = await createCharge(t, m);
    expectError(await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key, payload: '', headers: json }), 400, 'INVALID_STATE');
    expectError(await t.request('POST', '/transparents/refund?id=chg_nope', { key: m.key, payload: '', headers: json }), 404, 'NOT_FOUND');
  });

  it('unknown body fields are ignored', async () => {
    const c = expectOk(await t.request('POST', '/customers', { key: m.key, body: { email: 'x@example.com', id: 'cust_mine', foo: 1 } }), 201);
    expect(c.id).not.toBe('cust_mine');
    expect(c.id).toMatch(idOf('cust'));
  });

  const money: Array<[string, string, (v: unknown) => Record<string, unknown>, string]> = [
    ['charge amount', '/transparents/create', (v) => ({ method: 'PIX', amount: v }), 'amount'],
    ['charge expiresIn', '/transparents/create', (v) => ({ method: 'PIX', amount: 1000, expiresIn: v }), 'expiresIn'],
    ['split value', '/transparents/create', (v) => ({ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'FIXED', value: v }] }), 'split[0].value'],
    ['withdrawal amount', '/withdrawals', (v) => ({ amount: v, pixKey: 'a@example.com', pixKeyType: 'EMAIL' }), 'amount'],
  ];
  it.each(money)('%s: "1000" and 10.5 are VALIDATION_ERROR, never coerced', async (_n, url, body, field) => {
    for (const v of ['1000', 10.5, true, null]) {
      expectError(await t.request('POST', url, { key: m.key, body: body(v) }), 400, 'VALIDATION_ERROR', `${field}: must be an integer`);
    }
  });

  it('1000.0 is the integer 1000 and is accepted (charge amount, expiresIn, withdrawal amount)', async () => {
    const c = expectOk(await t.request('POST', '/transparents/create', {
      key: m.key, payload: '{"method":"PIX","amount":1000.0,"expiresIn":600.0}', headers: json,
    }), 201);
    expect(c.amount).toBe(1000);
    expect(Date.parse(c.expiresAt) - Date.parse(c.createdAt)).toBe(600_000);
    const rich = await t.merchant();
    await fund(t, rich, 5000);
    const w = expectOk(await t.request('POST', '/withdrawals', {
      key: rich.key, payload: '{"amount":1000.0,"pixKey":"a@example.com","pixKeyType":"EMAIL"}', headers: json,
    }), 201);
    expect(w.amount).toBe(1000);
  });

  it('query parameters are validated too (limit bounds and type, enum values)', async () => {
    for (const [q, message] of [
      ['limit=0', 'limit: must be >= 1'], ['limit=101', 'limit: must be <= 100'], ['limit=abc', 'limit: must be an integer'],
      ['limit=2.5', 'limit: must be an integer'], ['status=FOO', 'status: must be one of PENDING, PAID, EXPIRED, REFUNDED, DISPUTED'],
      ['status=paid', 'status: must be one of PENDING, PAID, EXPIRED, REFUNDED, DISPUTED'],
    ] as const) {
      expectError(await t.request('GET', `/transparents/list?${q}`, { key: m.key }), 400, 'VALIDATION_ERROR', message);
    }
    expectError(await t.request('GET', '/withdrawals?status=DONE', { key: m.key }), 400, 'VALIDATION_ERROR',
      'status: must be one of PENDING, PROCESSING, COMPLETED, FAILED');
    expectError(await t.request('GET', '/transparents/check', { key: m.key }), 400, 'VALIDATION_ERROR', 'id: is required');
    expectError(await t.request('POST', '/transparents/refund', { key: m.key }), 400, 'VALIDATION_ERROR', 'id: is required');
  });
});

describe('store and balance (docs/contract/merchants.md#store)', () => {
  it('GET /me/store is {id, name, balance{available, pending, blocked}}; GET /me/balance the balance', async () => {
    const s = expectOk(await t.request('GET', '/me/store', { key: m.key }));
    expect(keys(s)).toEqual(['balance', 'id', 'name']);
    expect(s.id).toBe(m.id);
    expect(s.id).toMatch(idOf('mer'));
    const b = expectOk(await t.request('GET', '/me/balance', { key: m.key }));
    expect(keys(b)).toEqual(['available', 'blocked', 'pending']);
    expect(s.balance).toEqual(b);
  });

  it('name: trade name, else legal name, else full name, else user name; null unless KYC APPROVED', async () => {
    const cases: Array<[Record<string, unknown>, string | null]> = [
      [{ userName: 'user', kyc: { status: 'APPROVED', tradeName: 'Trade', legalName: 'Legal', fullName: 'Full' } }, 'Trade'],
      [{ userName: 'user', kyc: { status: 'APPROVED', legalName: 'Legal', fullName: 'Full' } }, 'Legal'],
      [{ userName: 'user', kyc: { status: 'APPROVED', fullName: 'Full' } }, 'Full'],
      [{ userName: 'user', kyc: { status: 'APPROVED' } }, 'user'],
      [{ userName: 'user', kyc: { status: 'PENDING', tradeName: 'Trade' } }, null],
      [{ userName: 'user', kyc: { status: 'REJECTED', tradeName: 'Trade' } }, null],
    ];
    for (const [fields, name] of cases) {
      const x = await t.merchant(fields);
      expect(expectOk(await t.request('GET', '/me/store', { key: x.key })).name).toBe(name);
    }
  });
});
