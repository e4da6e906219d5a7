import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildHttp, createRuntime } from '../../src/composition.js';
import { deriveKey } from '../../src/platform/secrets.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, login } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const balance = (key: string) => t.request('GET', '/me/balance', { key });

describe('revocation is immediate', () => {
  it('logout ends the session: its token is 401 at once', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    expect((await balance(u.token)).status).toBe(200);
    const out = await t.request('POST', '/auth/logout', { key: u.token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ data: null, error: null, success: true });
    expect(String(out.headers['set-cookie'])).toMatch(/^pxg_session=;.*Expires=Thu, 01 Jan 1970/);
    expectError(await balance(u.token), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', '/auth/logout', { key: u.token }), 401, 'UNAUTHORIZED');
  });

  it('removal ends every session of the removed user', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const dev = await t.user(m.id, 'DEVELOPER');
    const second = (await login(t, { email: dev.email, password: dev.password })).body.data.token;
    expect((await balance(dev.token)).status).toBe(200);
    expect((await t.request('DELETE', `/me/users/${dev.id}`, { key: owner.token })).status).toBe(200);
    expectError(await balance(dev.token), 401, 'UNAUTHORIZED');
    expectError(await balance(second), 401, 'UNAUTHORIZED');
    expect((await balance(owner.token)).status).toBe(200);
  });

  it('a role change ends the user\'s sessions; a new login carries the new role', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const fin = await t.user(m.id, 'FINANCE');
    expect((await t.request('PATCH', `/me/users/${fin.id}`, { key: owner.token, body: { role: 'VIEWER' } })).status).toBe(200);
    expectError(await balance(fin.token), 401, 'UNAUTHORIZED');
    const again = await login(t, { email: fin.email, password: fin.password });
    expect(again.body.data.user.role).toBe('VIEWER');
    expectError(await t.request('POST', '/customers', { key: again.body.data.token, body: { email: 'c@example.com' } }), 403, 'FORBIDDEN', /VIEWER/);
  });

  it('a password change ends every other session (the one changing it stays); wrong currentPassword is 400', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'VIEWER');
    const other = (await login(t, { email: u.email, password: u.password })).body.data.token;
    expectError(await t.request('POST', '/me/password', { key: u.token, body: { currentPassword: 'not my password', newPassword: 'a brand new password' } }),
      400, 'VALIDATION_ERROR', 'currentPassword: invalid');
    expectError(await t.request('POST', '/me/password', { key: u.token, body: { currentPassword: u.password, newPassword: 'short' } }),
      400, 'VALIDATION_ERROR', 'newPassword: must have at least 12 characters');
    expectError(await t.request('POST', '/me/password', { key: u.token, body: { currentPassword: u.password, newPassword: u.email } }),
      400, 'VALIDATION_ERROR', 'newPassword: must not be the e-mail address');
    expect((await balance(other)).status).toBe(200);
    const changed = await t.request('POST', '/me/password', { key: u.token, body: { currentPassword: u.password, newPassword: 'a brand new password' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: u.id, email: u.email });
    expectError(await balance(other), 401, 'UNAUTHORIZED');
    expect((await balance(u.token)).status).toBe(200);
    expectError(await login(t, { email: u.email, password: u.password }), 401, 'UNAUTHORIZED');
    expect((await login(t, { email: u.email, password: 'a brand new password' })).status).toBe(200);
    expectError(await t.request('POST', '/me/password', { key: m.key, body: { currentPassword: 'x', newPassword: 'a brand new password' } }), 403, 'FORBIDDEN');
  });
});

describe('tokens', () => {
  it('a tampered, an expired, a foreign-signed token and a token of a session past its end are 401', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const [h, p, s] = u.token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, role: 'OWNER', merchantId: 'mer_other' })).toString('base64url');
    expectError(await balance(`${h}.${forged}.${s}`), 401, 'UNAUTHORIZED');
    expectError(await balance(`${h}.${p}.${s!.slice(0, -2)}AA`), 401, 'UNAUTHORIZED');
    const key = deriveKey(t.rt.config.encryptionKey, 'session-jwt');
    const expired = await new SignJWT({ merchantId: m.id, role: 'OWNER' }).setProtectedHeader({ alg: 'HS256' })
      .setSubject(u.id).setJti(claims.jti).setExpirationTime(Math.floor(Date.now() / 1000) - 10).sign(key);
    expectError(await balance(expired), 401, 'UNAUTHORIZED');
    const foreign = await new SignJWT({ merchantId: m.id, role: 'OWNER' }).setProtectedHeader({ alg: 'HS256' })
      .setSubject(u.id).setJti(claims.jti).setExpirationTime('1h').sign(Buffer.alloc(32, 7));
    expectError(await balance(foreign), 401, 'UNAUTHORIZED');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    expectError(await balance(none), 401, 'UNAUTHORIZED');
    // The session row says it has expired even though the signature is still good.
    expect((await balance(u.token)).status).toBe(200);
    await t.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [claims.jti]);
    expectError(await balance(u.token), 401, 'UNAUTHORIZED');
  });

  it('a JWT never works on /admin; a suspended merchant\'s session gets 403', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    expectError(await t.request('GET', '/admin/merchants', { key: u.token }), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/admin/merchants', { headers: { cookie: u.cookie } }), 401, 'UNAUTHORIZED');
    await t.admin('PATCH', `/admin/merchants/${m.id}`, { suspended: true });
    expectError(await balance(u.token), 403, 'FORBIDDEN', 'Merchant is suspended');
  });
});

describe('the pxg_session cookie', () => {
  it('login sets it HttpOnly, SameSite=Strict, Path=/, without Secure on loopback', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const res = await login(t, { email: u.email, password: u.password });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^pxg_session=${res.body.data.token.replace(/[.]/g, '\\.')};`));
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
  });

  it('is Secure when the service listens beyond loopback', async () => {
    const config = loadConfig({ ...process.env, HOST: '0.0.0.0', ADMIN_TOKEN: 'x'.repeat(32), ENCRYPTION_KEY: t.rt.config.encryptionKey.toString('hex'), LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0' }, { dataDir: t.rt.config.dataDir });
    const app = await buildHttp(createRuntime(config, t.pool));
    try {
      const m = await t.merchant();
      const u = await t.user(m.id);
      const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: u.password } });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['set-cookie'])).toContain('Secure');
    } finally {
      await app.close();
    }
  });

  it('authenticates GETs; a non-GET needs X-Pixgate-Client: dashboard (else 403); logout clears it', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const headers = { cookie: u.cookie };
    expect((await t.request('GET', '/me/balance', { headers })).status).toBe(200);
    const body = { email: 'c@example.com' };
    expectError(await t.request('POST', '/customers', { headers, body }), 403, 'FORBIDDEN', /X-Pixgate-Client: dashboard/);
    expectError(await t.request('POST', '/customers', { headers: { ...headers, 'x-pixgate-client': 'other' }, body }), 403, 'FORBIDDEN');
    const created = await t.request('POST', '/customers', { headers: { ...headers, 'x-pixgate-client': 'dashboard' }, body });
    expect(created.status).toBe(201);
    expectError(await t.request('DELETE', `/customers/${created.body.data.id}`, { headers }), 403, 'FORBIDDEN');
    // A bearer token needs no such header.
    expect((await t.request('POST', '/customers', { key: u.token, body: { email: 'd@example.com' } })).status).toBe(201);
    expectError(await t.request('POST', '/auth/logout', { headers }), 403, 'FORBIDDEN');
    const out = await t.request('POST', '/auth/logout', { headers: { ...headers, 'x-pixgate-client': 'dashboard' } });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^pxg_session=;/);
    expectError(await t.request('GET', '/me/balance', { headers }), 401, 'UNAUTHORIZED');
  });

  it('Authorization wins over the cookie when both are present', async () => {
    const a = await t.merchant();
    const b = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Loja B' } });
    const ua = await t.user(a.id);
    const store = await t.request('GET', '/me/store', { key: b.key, headers: { cookie: ua.cookie } });
    expect(store.body.data.id).toBe(b.id);
    expectError(await t.request('GET', '/me/store', { key: 'pxg_' + 'x'.repeat(40), headers: { cookie: ua.cookie } }), 401, 'UNAUTHORIZED');
    // With the bearer winning, a POST needs no CSRF header even when a cookie rides along.
    expect((await t.request('POST', '/customers', { key: ua.token, headers: { cookie: ua.cookie }, body: { email: 'e@example.com' } })).status).toBe(201);
  });
});
