// docs/contract/psp.md#no-call-in-a-transaction: no PSP call while a transaction holds a pooled connection. A charge create with an
// Idempotency-Key or a customerId claims the key in its own short statement, calls the PSP holding nothing,
// then writes; the idempotency rules (docs/contract/http.md#idempotency) and the customer rules still hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';
import { validTaxId, type Merchant } from './support.js';

let psp: FakePsp;
let t: TestContext;
let m: Merchant & { keyId: string };
beforeAll(async () => {
  psp = await startFakePsp();
  // The PSP answers slowly on purpose: the client must wait for it rather than give up.
  t = await createTestContext({ ...psp.env, API_PIX_TIMEOUT_MS: '20000' });
  m = await t.merchant();
});
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const COB = 'PUT /api/v2/cob/';
const customer = async () => {
  const res = await t.request('POST', '/customers', { key: m.key, body: { email: 'c@example.com', name: 'Cliente', taxId: validTaxId() } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};
const create = (body: Record<string, unknown>, key?: string) =>
  t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000, ...body }, headers: key ? { 'idempotency-key': key } : {} });
/** Claims without an answer yet: requests under a key that are waiting on the PSP (`key`: that one only). */
const openClaims = async (key?: string) => (await t.pool.query<{ n: number }>(
  'SELECT count(*)::int AS n FROM idempotency_keys WHERE merchant_id = $1 AND body IS NULL AND ($2::text IS NULL OR key = $2)', [m.id, key ?? null],
)).rows[0]!.n;
const charges = async () =>
  (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0]!.n;

describe('a PSP that answers cob creation in 5 s', () => {
  it('30 creates with keys and customers at once: /health and reads keep answering while they wait', async () => {
    const customers = await Promise.all(Array.from({ length: 30 }, customer));
    const before = await charges();
    for (let i = 0; i < 30; i++) psp.delayNext(COB, 5000);
    let finished = 0;
    const creates = customers.map((customerId, i) => create({ customerId }, `slow-${i}`).finally(() => finished++));
    // Every create has claimed its key and is waiting on the PSP (at most 2 s for all of them to get there).
    await eventually(async () => (await openClaims()) === 30, 2000).catch(() => {});
    const slowest: Record<string, number> = {};
    for (let round = 0; round < 4; round++) {
      for (const [name, url, key] of [['health', '/health', null], ['list', '/transparents/list', m.key], ['balance', '/me/balance', m.key]] as const) {
        const t0 = performance.now();
        const res = await t.request('GET', url, { key });
        const ms = performance.now() - t0;
        expect(res.status, name).toBe(200);
        slowest[name] = Math.max(slowest[name] ?? 0, ms);
      }
    }
    // The reads above all ran while every create was still waiting on the PSP.
    expect(finished).toBe(0);
    // A correctness check of "no stall", not a timing goal: with the pool held, a read waits for the PSP's
    // 5 s (and `finished` above is no longer 0). The bound leaves room for a loaded 2-core machine.
    for (const [name, ms] of Object.entries(slowest)) expect(ms, `${name} took ${Math.round(ms)} ms`).toBeLessThan(2500);

    const answers = await Promise.all(creates);
    for (const [i, res] of answers.entries()) {
      expect(res.status, res.raw).toBe(201);
      expect(res.body.data.customer.id).toBe(customers[i]);
    }
    expect(new Set(answers.map((r) => r.body.data.id)).size).toBe(30);
    expect(await charges()).toBe(before + 30);
    expect(await openClaims()).toBe(0);
    // The stored answer replays, the charge is not made again.
    const replay = await create({ customerId: customers[0] }, 'slow-0');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(answers[0]!.body);
    expect(await charges()).toBe(before + 30);
  }, 60_000);
});

describe('the Idempotency-Key claim', () => {
  it('a duplicate while the first waits on the PSP is IDEMPOTENCY_CONFLICT; afterwards it replays', async () => {
    psp.delayNext(COB, 1500);
    const first = create({ amount: 1500 }, 'dup-1');
    await eventually(async () => (await openClaims('dup-1')) === 1);
    const dup = await create({ amount: 1500 }, 'dup-1');
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: 'IDEMPOTENCY_CONFLICT', success: false });
    const other = await create({ amount: 1600 }, 'dup-1');
    expect(other.body.error).toBe('IDEMPOTENCY_CONFLICT');
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await create({ amount: 1500 }, 'dup-1');
    expect(replay.body).toEqual(done.body);
    expect((await create({ amount: 1600 }, 'dup-1')).body.error).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('a claim lives while its process beats, however old; once the process is silent for 5 s a retry takes it over', async () => {
    const body = { amount: 1700 };
    await t.pool.query(`INSERT INTO http_process_heartbeats (process_id) VALUES ('elsewhere')`);
    await t.pool.query(
      `INSERT INTO idempotency_keys (merchant_id, caller_id, key, request_hash, claim_id, claim_process, created_at)
       VALUES ($1, $2, 'dead-1', 'x', 'gone', 'elsewhere', now() - interval '2 minutes')`,
      [m.id, m.keyId],
    );
    expect((await create(body, 'dead-1')).body.error).toBe('IDEMPOTENCY_CONFLICT');
    await t.pool.query(`UPDATE http_process_heartbeats SET seen_at = now() - interval '4 seconds' WHERE process_id = 'elsewhere'`);
    expect((await create(body, 'dead-1')).body.error).toBe('IDEMPOTENCY_CONFLICT');
    await t.pool.query(`UPDATE http_process_heartbeats SET seen_at = now() - interval '6 seconds' WHERE process_id = 'elsewhere'`);
    const retry = await create(body, 'dead-1');
    expect(retry.status, retry.raw).toBe(201);
    expect((await create(body, 'dead-1')).headers['idempotent-replayed']).toBe('true');
  });

  it('a PSP failure stores nothing: a retry with the same key creates the charge', async () => {
    psp.failNext(COB, 503);
    const failed = await create({ amount: 1800 }, 'psp-down');
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('PROVIDER_ERROR');
    expect(await openClaims('psp-down')).toBe(0);
    const retry = await create({ amount: 1800 }, 'psp-down');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('customers', () => {
  it('a customer deleted while the PSP issues the code: customerId: not found, no charge, the key free again', async () => {
    const customerId = await customer();
    const before = await charges();
    psp.delayNext(COB, 1500);
    const pending = create({ customerId }, 'cust-gone');
    await eventually(async () => (await openClaims('cust-gone')) === 1);
    expect((await t.request('DELETE', `/customers/${customerId}`, { key: m.key })).status).toBe(200);
    const res = await pending;
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', message: 'customerId: not found' });
    expect(await charges()).toBe(before);
    expect(await openClaims('cust-gone')).toBe(0);
  });

  it('without a key, a customer deleted during the call gives the same answer and no charge', async () => {
    const customerId = await customer();
    const before = await charges();
    psp.delayNext(COB, 1500);
    const pending = create({ customerId });
    await new Promise((r) => setTimeout(r, 500));
    expect((await t.request('DELETE', `/customers/${customerId}`, { key: m.key })).status).toBe(200);
    const res = await pending;
    expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', message: 'customerId: not found' });
    expect(await charges()).toBe(before);
  });
});
