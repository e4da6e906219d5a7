import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { expectError } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('/me/api-keys', () => {
  it('POST creates a named key shown once (201); it works at once; GET lists it without the key; DELETE revokes it (401 at once)', async () => {
    const m = await t.merchant();
    const dev = await t.user(m.id, 'DEVELOPER');
    const created = await t.request('POST', '/me/api-keys', { key: dev.token, body: { name: 'production' } });
    expect(created.status).toBe(201);
    const key = created.body.data;
    // A DEVELOPER's key is a DEVELOPER key unless asked otherwise (docs/contract/access.md#key-roles).
    expect(key).toEqual({
      id: expect.stringMatching(/^key_/), name: 'production', key: expect.stringMatching(/^pxg_[0-9A-Za-z]{40}$/), last4: key.key.slice(-4),
      role: 'DEVELOPER', createdBy: dev.id, createdAt: expect.any(String),
    });
    expect((await t.request('GET', '/me/balance', { key: key.key })).status).toBe(200);

    const list = await t.request('GET', '/me/api-keys', { key: dev.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: any) => k.id)).toEqual([key.id, m.keyId]);
    // Keys issued before self-service (the operator's) are named "default", FULL, made by no user.
    expect(list.body.data[1]).toEqual({
      id: m.keyId, name: 'default', last4: expect.any(String), role: 'FULL', createdBy: null, createdAt: expect.any(String), lastUsedAt: null, revokedAt: null,
    });
    expect(list.raw).not.toContain(key.key);
    expect(list.body.pagination).toEqual({ hasMore: false, next: null, before: null });

    const revoked = await t.request('DELETE', `/me/api-keys/${key.id}`, { key: dev.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: key.id, name: 'production', revokedAt: expect.any(String) });
    expectError(await t.request('GET', '/me/balance', { key: key.key }), 401, 'UNAUTHORIZED');
    expect((await t.request('GET', '/me/api-keys', { key: dev.token })).body.data[0].revokedAt).toBe(revoked.body.data.revokedAt);
  });

  it('another merchant\'s key is 404; name is required; pages follow docs/contract/http.md#pagination', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    const owner = await t.user(a.id);
    expectError(await t.request('DELETE', `/me/api-keys/${b.keyId}`, { key: owner.token }), 404, 'NOT_FOUND');
    expect((await t.request('GET', '/me/balance', { key: b.key })).status).toBe(200);
    expectError(await t.request('POST', '/me/api-keys', { key: owner.token, body: {} }), 400, 'VALIDATION_ERROR', 'name: is required');
    for (const name of ['k1', 'k2']) await t.request('POST', '/me/api-keys', { key: owner.token, body: { name } });
    const page = await t.request('GET', '/me/api-keys?limit=2', { key: owner.token });
    expect(page.body.data.map((k: any) => k.name)).toEqual(['k2', 'k1']);
    expect(page.body.pagination.hasMore).toBe(true);
    const next = await t.request('GET', `/me/api-keys?limit=2&after=${page.body.pagination.next}`, { key: owner.token });
    expect(next.body.data.map((k: any) => k.name)).toEqual(['default']);
  });

  it('an API key gets 403 on every /me/api-keys route; FINANCE and VIEWER get 403 too', async () => {
    const m = await t.merchant();
    expectError(await t.request('GET', '/me/api-keys', { key: m.key }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/me/api-keys', { key: m.key, body: { name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await t.request('DELETE', `/me/api-keys/${m.keyId}`, { key: m.key }), 403, 'FORBIDDEN');
    for (const role of ['FINANCE', 'VIEWER']) {
      const u = await t.user(m.id, role);
      expectError(await t.request('GET', '/me/api-keys', { key: u.token }), 403, 'FORBIDDEN', new RegExp(role));
    }
  });

  it('an Idempotency-Key replays the same key; the stored answer does not hold it in clear', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const send = () => t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'once' }, headers: { 'idempotency-key': 'key-1' } });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const { rows } = await t.pool.query('SELECT body::text AS body FROM idempotency_keys WHERE merchant_id = $1', [m.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].body).not.toContain(first.body.data.key);
    expect((await t.request('GET', '/me/api-keys', { key: owner.token })).body.data.filter((k: any) => k.name === 'once')).toHaveLength(1);
  });

  it('key roles: an OWNER mints any (default FULL), a DEVELOPER only DEVELOPER or VIEWER (default DEVELOPER); OWNER is no key role', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const dev = await t.user(m.id, 'DEVELOPER');
    const mint = (token: string, body: Record<string, unknown>) => t.request('POST', '/me/api-keys', { key: token, body: { name: 'k', ...body } });
    expect((await mint(owner.token, {})).body.data).toMatchObject({ role: 'FULL', createdBy: owner.id });
    for (const role of ['FULL', 'FINANCE', 'DEVELOPER', 'VIEWER']) {
      const made = await mint(owner.token, { role });
      expect(made.status, made.raw).toBe(201);
      expect(made.body.data).toMatchObject({ role, createdBy: owner.id });
    }
    for (const role of ['DEVELOPER', 'VIEWER']) expect((await mint(dev.token, { role })).body.data).toMatchObject({ role, createdBy: dev.id });
    for (const role of ['FULL', 'FINANCE']) expectError(await mint(dev.token, { role }), 403, 'FORBIDDEN', `Role DEVELOPER may not make a ${role} API key`);
    const roles = 'role: must be one of FULL, FINANCE, DEVELOPER, VIEWER';
    expectError(await mint(owner.token, { role: 'OWNER' }), 400, 'VALIDATION_ERROR', roles);
    expectError(await mint(owner.token, { role: 'full' }), 400, 'VALIDATION_ERROR', roles);
    const listed = (await t.request('GET', '/me/api-keys?limit=100', { key: owner.token })).body.data;
    expect(listed.filter((k: any) => k.createdBy === dev.id).map((k: any) => k.role).sort()).toEqual(['DEVELOPER', 'VIEWER']);
  });

  it('the operator\'s key object carries its role, FULL, and createdBy null, when made and when revoked', async () => {
    const m = await t.merchant();
    const made = await t.admin('POST', `/admin/merchants/${m.id}/api-keys`);
    expect(made.status).toBe(201);
    expect(made.body.data).toEqual({
      id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^pxg_/), last4: made.body.data.key.slice(-4), role: 'FULL', createdBy: null, createdAt: expect.any(String),
    });
    const revoked = await t.admin('DELETE', `/admin/api-keys/${made.body.data.id}`);
    expect(revoked.body.data).toEqual({
      id: made.body.data.id, merchantId: m.id, last4: made.body.data.last4, role: 'FULL', createdBy: null, createdAt: made.body.data.createdAt, revokedAt: expect.any(String),
    });
    // A key an OWNER made keeps its maker in the operator's answer too.
    const owner = await t.user(m.id);
    const own = (await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'ci', role: 'VIEWER' } })).body.data;
    expect((await t.admin('DELETE', `/admin/api-keys/${own.id}`)).body.data).toMatchObject({ role: 'VIEWER', createdBy: owner.id });
  });

  it('hostile bodies: role of the wrong type or case, a name out of 1..100, unknown fields ignored; a refused caller is 403 whatever it sent', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const viewer = await t.user(m.id, 'VIEWER');
    const mint = (token: string, body: unknown) => t.request('POST', '/me/api-keys', { key: token, body });
    const roles = 'role: must be one of FULL, FINANCE, DEVELOPER, VIEWER';
    for (const role of [null, 1, ['FULL'], 'Viewer', '']) expectError(await mint(owner.token, { name: 'k', role }), 400, 'VALIDATION_ERROR', roles);
    expectError(await mint(owner.token, { name: '' }), 400, 'VALIDATION_ERROR', 'name: must have at least 1 character');
    expectError(await mint(owner.token, { name: 'x'.repeat(101) }), 400, 'VALIDATION_ERROR', 'name: must have at most 100 characters');
    expectError(await mint(owner.token, { name: 7 }), 400, 'VALIDATION_ERROR', 'name: must be a string');
    expectError(await mint(owner.token, [{ name: 'k' }]), 400, 'VALIDATION_ERROR', 'body: must be an object');
    const made = await mint(owner.token, { name: 'x'.repeat(100), role: 'VIEWER', createdBy: 'usr_someone', admin: true });
    expect(made.status, made.raw).toBe(201);
    expect(made.body.data).toMatchObject({ role: 'VIEWER', createdBy: owner.id });
    expectError(await mint(viewer.token, { name: 7, role: 'OWNER' }), 403, 'FORBIDDEN', 'Role VIEWER may not do this');
  });

  it('a key outlives its maker\'s demotion and removal, keeping its role', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const maker = await t.user(m.id);
    const made = (await t.request('POST', '/me/api-keys', { key: maker.token, body: { name: 'ci', role: 'FINANCE' } })).body.data;
    const withdraw = () => t.request('POST', '/withdrawals', { key: made.key, body: { amount: 100, pixKey: 'a@example.com', pixKeyType: 'EMAIL' } });
    expect((await withdraw()).status).not.toBe(403);
    expect((await t.request('PATCH', `/me/users/${maker.id}`, { key: owner.token, body: { role: 'VIEWER' } })).status).toBe(200);
    expect((await withdraw()).status).not.toBe(403);
    expect((await t.request('DELETE', `/me/users/${maker.id}`, { key: owner.token })).status).toBe(200);
    expect((await withdraw()).status).not.toBe(403);
    expectError(await t.request('POST', '/webhooks', { key: made.key, body: { url: 'https://example.com/h', events: ['CHARGE_PAID'] } }), 403, 'FORBIDDEN', 'API key role FINANCE may not do this');
    const listed = (await t.request('GET', '/me/api-keys', { key: owner.token })).body.data.find((k: any) => k.id === made.id);
    expect(listed).toMatchObject({ role: 'FINANCE', createdBy: maker.id, revokedAt: null });
  });

  it('lastUsedAt is recorded off the request path, at most once a minute per key', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const created = (await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'busy' } })).body.data;
    const lastUsed = async () => (await t.request('GET', '/me/api-keys', { key: owner.token })).body.data.find((k: any) => k.id === created.id).lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await t.request('GET', '/me/balance', { key: created.key });
    const first = await eventually(async () => {
      const at = await lastUsed();
      expect(at).not.toBeNull();
      return at as string;
    });
    // Many requests within the minute: no further write.
    await Promise.all(Array.from({ length: 30 }, () => t.request('GET', '/me/balance', { key: created.key })));
    await new Promise((r) => setTimeout(r, 200));
    expect(await lastUsed()).toBe(first);
    // A minute later the next use is recorded again.
    await t.pool.query(`UPDATE api_keys SET last_used_at = last_used_at - interval '61 seconds' WHERE id = $1`, [created.id]);
    const aged = await lastUsed();
    await t.request('GET', '/me/balance', { key: created.key });
    await eventually(async () => Date.parse(await lastUsed()) > Date.parse(aged));
  });
});
