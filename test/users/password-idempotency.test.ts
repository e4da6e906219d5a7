import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('POST /me/password with an Idempotency-Key (docs/contract/http.md#idempotency, docs/contract/access.md#passwords)', () => {
  it('replays the first answer; the stored fingerprint is no plain SHA-256 of the passwords', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const body = { currentPassword: u.password, newPassword: 'a brand new password 42' };
    const headers = { 'idempotency-key': 'pw-change-1' };
    const first = await t.request('POST', '/me/password', { key: u.token, body, headers });
    expect(first.status).toBe(200);
    // The same request again: the stored answer, not `currentPassword: invalid` (the password changed).
    const again = await t.request('POST', '/me/password', { key: u.token, body, headers });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);

    const { rows } = await t.pool.query<{ request_hash: string }>(
      'SELECT request_hash FROM idempotency_keys WHERE merchant_id = $1 AND key = $2', [m.id, 'pw-change-1']);
    expect(rows).toHaveLength(1);
    const plain = createHash('sha256').update(JSON.stringify({ body, method: 'POST', path: '/me/password', query: {} })).digest('hex');
    expect(rows[0]!.request_hash).not.toBe(plain);
    expect(rows[0]!.request_hash).not.toContain(body.newPassword);
  });
});
