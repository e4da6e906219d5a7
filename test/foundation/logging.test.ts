import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHttp } from '../../src/composition.js';
import { createTestContext, ADMIN_TOKEN, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

it('writes structured logs that never contain API keys, tokens, tax ids or PIX keys', async () => {
  const stream = new PassThrough();
  let logs = '';
  stream.on('data', (chunk) => (logs += chunk.toString()));
  const app = await buildHttp(t.rt, stream);
  const pixKey = '52998224725';
  const taxId = '11222333000181';
  const created = await app.inject({
    method: 'POST', url: '/admin/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: { userName: 'log', email: 'log@example.com', kyc: { status: 'APPROVED', taxId }, pixKey: { type: 'CPF', key: pixKey } },
  });
  const merchantId = created.json().data.id;
  const key = (await app.inject({ method: 'POST', url: `/admin/merchants/${merchantId}/api-keys`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json().data.key;
  await app.inject({ method: 'GET', url: `/me/store?taxId=${taxId}&email=log@example.com`, headers: { authorization: `Bearer ${key}` } });
  await app.inject({ method: 'GET', url: '/me/store', headers: { authorization: `Bearer ${key}x` } });
  await app.close();

  const lines = logs.trim().split('\n').map((l) => JSON.parse(l));
  // One line per request, with its method, URL, status and duration.
  const requests = lines.filter((l) => l.reqId && l.req);
  expect(requests.map((l) => [l.msg, l.req.method, l.res?.statusCode])).toEqual([
    ['request completed', 'POST', 201], ['request completed', 'POST', 201], ['request completed', 'GET', 200], ['request completed', 'GET', 401],
  ]);
  expect(requests.every((l) => typeof l.responseTime === 'number')).toBe(true);
  for (const secret of [key, key.slice(4), ADMIN_TOKEN, pixKey, taxId, 'log@example.com']) expect(logs).not.toContain(secret);
});
