import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, login } from './support.js';

// docs/contract/access.md walked line by line over HTTP: the points no other test file pins down.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('dashboard users and sessions (docs/contract/access.md), audited', () => {
  it('the token: claims sub, merchant id, role, jti; exp 12 h on; expiresAt is exp', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'FINANCE');
    const res = await login(t, { email: u.email, password: u.password });
    const claims = decodeJwt(res.body.data.token);
    expect(claims).toMatchObject({ sub: u.id, merchantId: m.id, role: 'FINANCE', jti: expect.stringMatching(/^ses_/) });
    expect(claims.exp! * 1000).toBe(Date.parse(res.body.data.expiresAt));
    expect(Math.abs(claims.exp! * 1000 - Date.now() - 12 * 3600_000)).toBeLessThan(60_000);
    expect(Object.keys(res.body.data).sort()).toEqual(['expiresAt', 'merchant', 'token', 'user']);
    expect(Object.keys(res.body.data.user).sort()).toEqual(['createdAt', 'email', 'id', 'lastLoginAt', 'name', 'role', 'totpEnabled']);
    expect(Object.keys(res.body.data.merchant).sort()).toEqual(['id', 'name']);
  });

  it('the invitation is valid 72 h; an e-mail of another merchant in other case is 409 email: already registered', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    const owner = await t.user(a.id, 'OWNER');
    const invited = await t.request('POST', '/me/users', { key: owner.token, body: { email: 'Ana.Audit@Example.com', name: 'Ana', role: 'VIEWER' } });
    expect(invited.status).toBe(201);
    expect(Math.abs(Date.parse(invited.body.data.invitation.expiresAt) - Date.now() - 72 * 3600_000)).toBeLessThan(60_000);
    expect(invited.body.data.invitation.url).toMatch(/\/dashboard\/invite\/[^/]+$/);
    expectError(await t.admin('POST', `/admin/merchants/${b.id}/users`, { email: 'ana.audit@example.COM', name: 'Ana', role: 'OWNER' }), 409, 'CONFLICT', 'email: already registered');
  });

  it('cookie sessions: a non-GET without X-Pixgate-Client is 403 (logout and DELETE included); GET passes', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'OWNER');
    const headers = { cookie: u.cookie };
    expect((await t.request('GET', '/me/users', { headers })).status).toBe(200);
    expectError(await t.request('POST', '/transparents/create', { headers, body: { method: 'PIX', amount: 1000 } }), 403, 'FORBIDDEN');
    expectError(await t.request('DELETE', '/me/users/usr_x', { headers }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/auth/logout', { headers }), 403, 'FORBIDDEN');
    expect((await t.request('POST', '/transparents/create', { headers: { ...headers, 'x-pixgate-client': 'dashboard' }, body: { method: 'PIX', amount: 1000 } })).status).toBe(201);
    expect((await t.request('POST', '/auth/logout', { headers: { ...headers, 'x-pixgate-client': 'dashboard' } })).status).toBe(200);
    expectError(await t.request('GET', '/me/users', { headers }), 401, 'UNAUTHORIZED');
  });

  it('an API key is 403 on every /me/users and /me/api-keys route, reads included', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id, 'OWNER');
    const key = (await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'ci' } })).body.data;
    for (const [method, url, body] of [
      ['GET', '/me/users'], ['POST', '/me/users', { email: 'x-audit@example.com', name: 'X', role: 'VIEWER' }],
      ['PATCH', `/me/users/${owner.id}`, { role: 'VIEWER' }], ['DELETE', `/me/users/${owner.id}`],
      ['GET', '/me/api-keys'], ['POST', '/me/api-keys', { name: 'k' }], ['DELETE', `/me/api-keys/${key.id}`],
    ] as Array<[string, string, unknown?]>) {
      expectError(await t.request(method, url, { key: m.key, body }), 403, 'FORBIDDEN');
    }
  });

  it('a role change and a removal end the user\'s sessions at once; a JWT is 401 on /admin', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id, 'OWNER');
    const dev = await t.user(m.id, 'DEVELOPER');
    const fin = await t.user(m.id, 'FINANCE');
    const changed = await t.request('PATCH', `/me/users/${dev.id}`, { key: owner.token, body: { role: 'VIEWER' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.role).toBe('VIEWER');
    expectError(await t.request('GET', '/me/balance', { key: dev.token }), 401, 'UNAUTHORIZED');
    expect((await t.request('DELETE', `/me/users/${fin.id}`, { key: owner.token })).status).toBe(200);
    expectError(await t.request('GET', '/me/balance', { key: fin.token }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/admin/merchants', { key: owner.token }), 401, 'UNAUTHORIZED');
  });

  it('self-service API keys: field sets of create, list and revoke; a revoked key is 401 at once', async () => {
    const m = await t.merchant();
    const dev = await t.user(m.id, 'DEVELOPER');
    const created = await t.request('POST', '/me/api-keys', { key: dev.token, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual(['createdAt', 'createdBy', 'id', 'key', 'last4', 'name', 'role']);
    const list = await t.request('GET', '/me/api-keys', { key: dev.token });
    expect(list.body.pagination).toBeDefined();
    expect(Object.keys(list.body.data[0]).sort()).toEqual(['createdAt', 'createdBy', 'id', 'last4', 'lastUsedAt', 'name', 'revokedAt', 'role']);
    const revoked = await t.request('DELETE', `/me/api-keys/${created.body.data.id}`, { key: dev.token });
    expect(revoked.status).toBe(200);
    expect(Object.keys(revoked.body.data).sort()).toEqual(['createdAt', 'createdBy', 'id', 'last4', 'lastUsedAt', 'name', 'revokedAt', 'role']);
    expect(revoked.body.data.revokedAt).toEqual(expect.any(String));
    expectError(await t.request('GET', '/me/balance', { key: created.body.data.key }), 401, 'UNAUTHORIZED');
  });

  it('TOTP routes answer 200; the enrolment\'s field set', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'VIEWER');
    const enrol = await t.request('POST', '/me/totp', { key: u.token });
    expect(enrol.status).toBe(200);
    expect(Object.keys(enrol.body.data).sort()).toEqual(['otpauthUrl', 'qrImageBase64', 'secret']);
    expectError(await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: '000000' } }), 400, 'VALIDATION_ERROR', 'code: invalid');
    expectError(await t.request('POST', '/me/password', { key: u.token, body: { currentPassword: 'not the password', newPassword: 'another long password' } }), 400, 'VALIDATION_ERROR', 'currentPassword: invalid');
  });

  it('accepting an invitation answers 200 the user; an invitation to an unknown merchant is 404', async () => {
    const m = await t.merchant();
    const invited = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email: 'first-audit@example.com', name: 'First', role: 'OWNER' });
    const token = String(invited.body.data.invitation.url).split('/').pop();
    const accepted = await t.request('POST', `/auth/invitations/${token}/accept`, { body: { password: 'a long enough password', name: 'Primeira' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toEqual({ id: invited.body.data.user.id, email: 'first-audit@example.com', name: 'Primeira', role: 'OWNER', totpEnabled: false, createdAt: expect.any(String), lastLoginAt: null });
    expectError(await t.admin('POST', '/admin/merchants/mer_unknown/users', { email: 'nobody-audit@example.com', name: 'N', role: 'OWNER' }), 404, 'NOT_FOUND');
  });
});
