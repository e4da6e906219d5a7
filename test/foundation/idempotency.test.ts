import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneIdempotencyKeys } from '../../src/platform/http/idempotency.tasks.js';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  key = (await t.merchant()).key;
});
afterAll(async () => { await t?.close(); });

let n = 0;
const idemKey = () => `idem-${Date.now()}-${++n}`;
const createCustomer = (k: string, body: unknown, apiKey = key) =>
  t.request('POST', '/customers', { key: apiKey, body, headers: { 'idempotency-key': k } });
const customerCount = async (email: string) =>
  (await t.pool.query('SELECT count(*)::int AS n FROM customers WHERE email = $1', [email])).rows[0].n;

describe('Idempotency-Key', () => {
  it('replays the first answer, status and body, without running the command again', async () => {
    const k = idemKey();
    const first = await createCustomer(k, { email: 'replay@example.com', name: 'Ana' });
    expect(first.status).toBe(201);
    const second = await createCustomer(k, { name: 'Ana', email: 'replay@example.com' }); // JSON-equal, keys reordered
    expect(second.status).toBe(201);
    expect(second.raw).toBe(first.raw);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await customerCount('replay@example.com')).toBe(1);
  });

  it('refuses the key with a different body, path or query', async () => {
    const k = idemKey();
    expect((await createCustomer(k, { email: 'changed@example.com' })).status).toBe(201);
    const changed = await createCustomer(k, { email: 'changed2@example.com' });
    expect(changed.status).toBe(409);
    expect(changed.body).toEqual({ error: 'IDEMPOTENCY_CONFLICT', message: expect.any(String), success: false });
    const otherPath = await t.request('POST', '/webhooks', { key, body: { url: 'https://example.com/idem', events: ['CHARGE_PAID'] }, headers: { 'idempotency-key': k } });
    expect(otherPath.status).toBe(409);
    expect(await customerCount('changed2@example.com')).toBe(0);
  });

  it('runs 10 concurrent duplicates exactly once', async () => {
    const k = idemKey();
    const answers = await Promise.all(Array.from({ length: 10 }, () => createCustomer(k, { email: 'race@example.com' })));
    expect(await customerCount('race@example.com')).toBe(1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of created) expect(a.body.data.id).toBe(created[0]!.body.data.id);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.error).toBe('IDEMPOTENCY_CONFLICT');
    }
  });

  it('does not store validation errors, so a corrected retry with the same key works', async () => {
    const k = idemKey();
    const bad = await createCustomer(k, { email: 'not-an-email' });
    expect(bad.status).toBe(400);
    const good = await createCustomer(k, { email: 'fixed@example.com' });
    expect(good.status).toBe(201);
  });

  it('stores business rejections and replays them', async () => {
    const taxId = '52998224725';
    const existing = await t.request('POST', '/customers', { key, body: { email: 'a@example.com', taxId } });
    expect(existing.status).toBe(201);
    const k = idemKey();
    const conflict = await createCustomer(k, { email: 'b@example.com', taxId });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('CONFLICT');
    await t.request('DELETE', `/customers/${existing.body.data.id}`, { key });
    const replay = await createCustomer(k, { email: 'b@example.com', taxId });
    expect(replay.status).toBe(409);
    expect(replay.raw).toBe(conflict.raw);
    expect(await customerCount('b@example.com')).toBe(0);
  });

  it('keeps keys per merchant', async () => {
    const other = await t.merchant();
    const k = idemKey();
    const mine = await createCustomer(k, { email: 'per-merchant@example.com' });
    const theirs = await createCustomer(k, { email: 'per-merchant@example.com' }, other.key);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('validates the header', async () => {
    for (const bad of ['', 'x'.repeat(256), 'café']) {
      const res = await createCustomer(bad, { email: 'header@example.com' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(/^Idempotency-Key: /);
    }
    expect(await customerCount('header@example.com')).toBe(0);
  });

  it('honours an answer for 24 hours; the hourly sweep then deletes it, and the key runs the command afresh', async () => {
    const [old, fresh] = [idemKey(), idemKey()];
    expect((await createCustomer(old, { email: 'aged@example.com' })).status).toBe(201);
    expect((await createCustomer(fresh, { email: 'fresh@example.com' })).status).toBe(201);
    await t.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = $1", [old]);
    await t.pool.query("UPDATE idempotency_keys SET created_at = now() - interval '23 hours 59 minutes' WHERE key = $1", [fresh]);

    expect(await pruneIdempotencyKeys(t.pool)).toBeGreaterThanOrEqual(1);
    const { rows } = await t.pool.query('SELECT key FROM idempotency_keys WHERE key = ANY($1)', [[old, fresh]]);
    expect(rows.map((r) => r.key)).toEqual([fresh]);
    expect((await createCustomer(fresh, { email: 'fresh@example.com' })).headers['idempotent-replayed']).toBe('true');
    const again = await createCustomer(old, { email: 'aged2@example.com' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('the sweep is queued when a worker starts', async () => {
    const { rows } = await t.pool.query("SELECT 1 FROM graphile_worker.jobs WHERE key = 'idempotency.prune'");
    expect(rows).toHaveLength(1);
  });
});
