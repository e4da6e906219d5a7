import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ RATE_LIMIT_PER_SECOND: '5' }); });
afterAll(async () => { await t?.close(); });

it('limits each API key separately and answers 429 RATE_LIMITED with Retry-After', async () => {
  const a = await t.merchant();
  const b = await t.merchant();
  const statuses = [];
  for (let i = 0; i < 7; i++) statuses.push((await t.request('GET', '/me/balance', { key: a.key })).status);
  expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  const limited = await t.request('GET', '/me/balance', { key: a.key });
  expect(limited.status).toBe(429);
  expect(limited.body).toEqual({ error: 'RATE_LIMITED', message: expect.any(String), success: false });
  expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect((await t.request('GET', '/me/balance', { key: b.key })).status).toBe(200);
});
