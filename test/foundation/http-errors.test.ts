import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, ADMIN_TOKEN, type TestContext } from '../support/context.js';

let t: TestContext;
let key: string;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  t = await createTestContext();
  key = (await t.merchant()).key;
});
afterAll(async () => { await t?.close(); });

const expectError = (res: { status: number; body: any }, status: number, code: string, message?: string) => {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'success']);
  expect(res.body.error).toBe(code);
  expect(res.body.success).toBe(false);
  if (message !== undefined) expect(res.body.message).toBe(message);
};

describe('routing', () => {
  it('answers 404 NOT_FOUND for unknown routes, before auth', async () => {
    expectError(await t.request('GET', '/nope'), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/me/nope', { key }), 404, 'NOT_FOUND');
  });
  it('answers 404 for a known path with another method', async () => {
    expectError(await t.request('POST', '/me/store', { key }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', '/me/balance'), 404, 'NOT_FOUND');
  });
  it('answers 404 for an unknown route even with a malformed body', async () => {
    const res = await t.request('POST', '/nope', { payload: '{"a":', headers: { 'content-type': 'application/json' } });
    expectError(res, 404, 'NOT_FOUND');
  });
  it('sets a request id on every answer', async () => {
    const res = await t.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('bodies', () => {
  const post = (payload: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    t.request('POST', '/admin/merchants', { payload, headers: { ...admin, ...headers } });

  it('rejects malformed JSON', async () => {
    expectError(await post('{"userName": "x",'), 400, 'VALIDATION_ERROR', 'body: invalid JSON');
    expectError(await post('nul'), 400, 'VALIDATION_ERROR', 'body: invalid JSON');
  });
  it('names the missing field', async () => {
    expectError(await post('{"email":"a@example.com"}'), 400, 'VALIDATION_ERROR', 'userName: is required');
    expectError(await post(''), 400, 'VALIDATION_ERROR', 'body: must be an object');
  });
  it('rejects wrong types without coercion', async () => {
    expectError(await post('{"userName":"x","email":"a@example.com","minTicket":"100"}'), 400, 'VALIDATION_ERROR', 'minTicket: must be an integer');
    expectError(await post('{"userName":"x","email":"a@example.com","minTicket":10.5}'), 400, 'VALIDATION_ERROR', 'minTicket: must be an integer');
    expectError(await post('{"userName":"x","email":"a@example.com","withdrawalsEnabled":"true"}'), 400, 'VALIDATION_ERROR', 'withdrawalsEnabled: must be a boolean');
    expectError(await post('[1,2]'), 400, 'VALIDATION_ERROR', 'body: must be an object');
    expectError(await post('{"userName":"x","email":"not-an-email"}'), 400, 'VALIDATION_ERROR', 'email: must be a valid e-mail');
    expectError(await post('{"userName":"x","email":"a@example.com","kyc":{"status":"MAYBE"}}'), 400, 'VALIDATION_ERROR');
  });
  it('accepts 1000.0 as the integer 1000', async () => {
    const res = await post('{"userName":"x","email":"a@example.com","minTicket":1000.0}');
    expect(res.status).toBe(201);
    expect(res.body.data.minTicket).toBe(1000);
  });
  it('rejects a body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ userName: 'x', email: 'a@example.com', pad: 'x'.repeat(1024 * 1024) });
    expectError(await post(big), 413, 'PAYLOAD_TOO_LARGE');
  });
  it('rejects a non-JSON content type', async () => {
    expectError(await post('userName=x', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'VALIDATION_ERROR');
  });
  it('writes nothing when a request fails', async () => {
    const before = await t.pool.query('SELECT count(*)::int AS n FROM merchants');
    await post('{"userName":"x","email":"a@example.com","minTicket":500,"maxTicket":100}');
    await post('{"userName":"x","email":"a@example.com","pixKey":{"type":"CPF","key":"11111111111"}}');
    const after = await t.pool.query('SELECT count(*)::int AS n FROM merchants');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
  it('validates PIX keys and ticket bounds in the service', async () => {
    expectError(await post('{"userName":"x","email":"a@example.com","minTicket":500,"maxTicket":100}'), 400, 'VALIDATION_ERROR', 'maxTicket: must be >= minTicket');
    const badKey = await post('{"userName":"x","email":"a@example.com","pixKey":{"type":"CPF","key":"11111111111"}}');
    expectError(badKey, 400, 'VALIDATION_ERROR');
    expect(badKey.body.message).toMatch(/^pixKey\.key: /);
  });
});

describe('query and path parameters', () => {
  it('validates list limits and cursors', async () => {
    const get = (q: string) => t.request('GET', `/admin/merchants${q}`, { headers: admin });
    expectError(await get('?limit=0'), 400, 'VALIDATION_ERROR', 'limit: must be >= 1');
    expectError(await get('?limit=101'), 400, 'VALIDATION_ERROR', 'limit: must be <= 100');
    expectError(await get('?limit=abc'), 400, 'VALIDATION_ERROR', 'limit: must be an integer');
    expectError(await get('?limit=2.5'), 400, 'VALIDATION_ERROR', 'limit: must be an integer');
    expectError(await get('?after=garbage'), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    expectError(await get('?before=a.b'), 400, 'VALIDATION_ERROR', 'before: invalid cursor');
    expectError(await get('?after=a.b&before=a.b'), 400, 'VALIDATION_ERROR');
    expect((await get('?limit=1')).status).toBe(200);
  });
  it('answers 404 for unknown ids', async () => {
    expectError(await t.request('GET', '/admin/merchants/mer_nope', { headers: admin }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', '/admin/api-keys/key_nope', { headers: admin }), 404, 'NOT_FOUND');
  });
});

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/me/store', '/me/balance', '/admin/merchants', '/health']));
    expect(res.body.paths['/admin/merchants'].post.requestBody.content['application/json'].schema.required).toEqual(['userName', 'email']);
  });
  it('documents Idempotency-Key on every merchant POST, once, and not on operator routes', async () => {
    await t.request('GET', '/openapi.json');
    const doc = (await t.request('GET', '/openapi.json')).body;
    const idempotency = (op: any) => (op.parameters ?? []).filter((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
    for (const path of ['/customers', '/transparents/create', '/transparents/refund', '/withdrawals', '/webhooks']) {
      expect(idempotency(doc.paths[path].post)).toHaveLength(1);
    }
    expect(idempotency(doc.paths['/admin/merchants'].post)).toHaveLength(0);
  });
  it('serves a docs page', async () => {
    const res = await t.request('GET', '/docs/');
    expect(res.status).toBe(200);
    expect(res.raw).toContain('<html');
  });
});
