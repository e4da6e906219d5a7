// docs/contract/http.md#rate-limits: with REDIS_URL the per-key limit is shared by every process; without it each counts
// its own. Unknown credentials are limited per client address before any database lookup.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildHttp, createRuntime } from '../../src/composition.js';
import { createTestContext, type TestContext } from '../support/context.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let t: TestContext;
const extra: FastifyInstance[] = [];
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterEach(async () => { for (const app of extra.splice(0)) await app.close(); });
afterAll(async () => { await t?.close(); });

/** A process's HTTP app on the test's database (the same keys), with its own rate-limit settings. */
async function processApp(env: Record<string, string>): Promise<FastifyInstance> {
  const config = loadConfig({ ADMIN_TOKEN: 'a'.repeat(40), ENCRYPTION_KEY: t.rt.config.encryptionKey.toString('hex'), LOG_LEVEL: 'silent', ...env }, { dataDir: t.rt.config.dataDir });
  const app = await buildHttp(createRuntime(config, t.pool));
  extra.push(app);
  // A first request compiles the routes' code paths (up to a second on a busy machine): not inside a window.
  await app.inject({ method: 'GET', url: '/me/balance', headers: { authorization: 'Bearer warm-up' }, remoteAddress: '192.0.2.1' });
  return app;
}
const get = (app: FastifyInstance, token: string, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'GET', url: '/me/balance', headers: { authorization: `Bearer ${token}` }, remoteAddress });
const prefix = () => `pixgate-test-${randomBytes(6).toString('hex')}:`;
const unknownKey = () => `pxg_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'a').slice(0, 40)}`;

/** Counts the API key lookups the apps make on the shared pool. */
function countKeyLookups(): { n: number; stop(): void } {
  const query = t.pool.query.bind(t.pool) as (...a: unknown[]) => unknown;
  const counter = { n: 0, stop: () => void ((t.pool as { query: unknown }).query = query) };
  (t.pool as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
    if (typeof text === 'string' && text.includes('FROM api_keys k JOIN merchants')) counter.n++;
    return query(text, ...rest);
  };
  return counter;
}
const nextSecond = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));

it('with REDIS_URL two processes share one per-key budget; without it each counts its own', async () => {
  const { key } = await t.merchant();
  for (const shared of [true, false]) {
    const env = { RATE_LIMIT_PER_SECOND: '5', ...(shared ? { REDIS_URL, REDIS_PREFIX: prefix() } : {}) };
    const [a, b] = [await processApp(env), await processApp(env)];
    await nextSecond();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(i % 2 ? b : a, key)).statusCode);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(shared ? 429 : 200);
    for (const app of extra.splice(0)) await app.close();
    await nextSecond();
  }
});

it('unknown keys and garbage are limited per address before the lookup: a burst costs at most the budget in lookups', async () => {
  const { key } = await t.merchant();
  const app = await processApp({ RATE_LIMIT_PER_SECOND: '5' });
  expect((await get(app, key)).statusCode).toBe(200); // a key that resolved here before
  await nextSecond();
  const lookups = countKeyLookups();
  try {
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => get(app, i % 4 ? unknownKey() : 'garbage')));
    const statuses = burst.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(lookups.n).toBeLessThanOrEqual(5);
    const limited = burst.find((r) => r.statusCode === 429)!;
    expect(limited.json()).toEqual({ error: 'RATE_LIMITED', message: expect.any(String), success: false });
    expect(limited.headers['retry-after']).toBe('1');

    // The known key from the same address is not held back; another address has its own budget.
    expect((await get(app, key)).statusCode).toBe(200);
    expect((await get(app, unknownKey(), '10.1.2.3')).statusCode).toBe(401);
  } finally {
    lookups.stop();
  }
});

it('with REDIS_URL the address budget is shared: failures on one process are refused by another without a lookup', async () => {
  const env = { RATE_LIMIT_PER_SECOND: '3', REDIS_URL, REDIS_PREFIX: prefix() };
  const [a, b] = [await processApp(env), await processApp(env)];
  await nextSecond();
  for (let i = 0; i < 3; i++) expect((await get(a, unknownKey(), '203.0.113.7')).statusCode).toBe(401);
  const lookups = countKeyLookups();
  try {
    expect((await get(b, unknownKey(), '203.0.113.7')).statusCode).toBe(429);
    expect(lookups.n).toBe(0);
  } finally {
    lookups.stop();
  }
});

it('a revoked key counts as unknown at once', async () => {
  const m = await t.merchant();
  const app = await processApp({ RATE_LIMIT_PER_SECOND: '2' });
  expect((await get(app, m.key)).statusCode).toBe(200);
  expect((await t.admin('DELETE', `/admin/api-keys/${m.keyId}`)).status).toBe(200);
  await nextSecond();
  // The first refusal is looked up as a known key; from then on it takes the address's budget (2).
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await get(app, m.key)).statusCode);
  expect(statuses).toEqual([401, 401, 401, 429]);
});
