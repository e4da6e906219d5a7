// docs/contract/http.md#idempotency-scope: an Idempotency-Key belongs to its caller (an API key, a dashboard user),
// not only to the merchant; an answer is never replayed to another caller, least of all one holding a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, login } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const withKey = (k: string) => ({ 'idempotency-key': k });
const customers = async (merchantId: string, email: string) =>
  (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM customers WHERE merchant_id = $1 AND email = $2', [merchantId, email])).rows[0]!.n;

describe('Idempotency-Key per caller', () => {
  it('a VIEWER sending an OWNER\'s TOTP enrolment key gets an enrolment of its own, never the OWNER\'s secret', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id, 'OWNER');
    const viewer = await t.user(m.id, 'VIEWER');
    const mine = await t.request('POST', '/me/totp', { key: owner.token, headers: withKey('enrol-1') });
    expect(mine.status).toBe(200);
    const theirs = await t.request('POST', '/me/totp', { key: viewer.token, headers: withKey('enrol-1') });
    expect(theirs.status, theirs.raw).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.raw).not.toContain(mine.body.data.secret);
    expect(theirs.body.data.secret).not.toBe(mine.body.data.secret);
    // The OWNER's own retry still replays its answer.
    const again = await t.request('POST', '/me/totp', { key: owner.token, headers: withKey('enrol-1') });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(mine.body);
  });

  it('a new API key is replayed only to the user who made it', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id, 'OWNER');
    const dev = await t.user(m.id, 'DEVELOPER');
    const made = await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'ci' }, headers: withKey('key-1') });
    const other = await t.request('POST', '/me/api-keys', { key: dev.token, body: { name: 'ci' }, headers: withKey('key-1') });
    expect(other.status, other.raw).toBe(201);
    expect(other.raw).not.toContain(made.body.data.key);
    expect(other.body.data).toMatchObject({ role: 'DEVELOPER', createdBy: dev.id });
  });

  it('two API keys of one merchant with the same key and request are two requests; each key replays its own', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id, 'OWNER');
    const second = (await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'second' } })).body.data.key as string;
    const create = (apiKey: string) => t.request('POST', '/customers', { key: apiKey, body: { email: 'two@example.com' }, headers: withKey('same') });
    const a = await create(m.key);
    const b = await create(second);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(await customers(m.id, 'two@example.com')).toBe(2);
    expect((await create(m.key)).body).toEqual(a.body);
    expect((await create(second)).body).toEqual(b.body);
    // A dashboard user is a third caller; a conflicting request under another caller's key is no conflict either.
    const c = await t.request('POST', '/customers', { key: owner.token, body: { email: 'three@example.com' }, headers: withKey('same') });
    expect(c.status, c.raw).toBe(201);
    expect(await customers(m.id, 'two@example.com')).toBe(2);
  });

  it('a user is one caller across sessions: a retry after logging in again replays', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id, 'OWNER');
    const first = await t.request('POST', '/customers', { key: owner.token, body: { email: 'relog@example.com' }, headers: withKey('relog') });
    const again = await login(t, { email: owner.email, password: owner.password });
    const retry = await t.request('POST', '/customers', { key: again.body.data.token, body: { email: 'relog@example.com' }, headers: withKey('relog') });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('an answer stored before keys had callers is replayed to nobody and keeps its key spent until it expires', async () => {
    const m = await t.merchant();
    await t.pool.query(
      `INSERT INTO idempotency_keys (merchant_id, caller_id, key, request_hash, status_code, body) VALUES ($1, '', 'before', 'x', 201, '{"sealed": "x"}')`,
      [m.id],
    );
    const res = await t.request('POST', '/customers', { key: m.key, body: { email: 'legacy@example.com' }, headers: withKey('before') });
    expectError(res, 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key: already used before keys were kept per caller; use a new key');
    expect(await customers(m.id, 'legacy@example.com')).toBe(0);
    await t.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE merchant_id = $1`, [m.id]);
    expect((await t.request('POST', '/customers', { key: m.key, body: { email: 'legacy@example.com' }, headers: withKey('before') })).status).toBe(201);
  });
});
