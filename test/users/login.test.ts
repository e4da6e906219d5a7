import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, login } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

describe('POST /auth/login', () => {
  // Every login here comes from one address: its limit (test/users/login-limits.test.ts) is not what these tests are about.
  beforeEach(async () => { await t.pool.query(`UPDATE auth_failures SET at = at - interval '1 minute' WHERE subject LIKE 'address:%'`); });

  it('answers a token, its expiry, the user and the merchant; the token works as a Bearer on merchant routes', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'VIEWER', { email: 'Login.Case@Example.com' });
    const res = await login(t, { email: 'login.case@example.COM', password: u.password });
    expect(res.status).toBe(200);
    const { token, expiresAt, user, merchant } = res.body.data;
    expect(user).toEqual({
      id: u.id, email: 'Login.Case@Example.com', name: 'VIEWER user', role: 'VIEWER', totpEnabled: false,
      createdAt: expect.any(String), lastLoginAt: expect.any(String),
    });
    expect(merchant).toEqual({ id: m.id, name: 'Loja Teste' });
    const hours = (Date.parse(expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ sub: u.id, merchantId: m.id, role: 'VIEWER', exp: Date.parse(expiresAt) / 1000 });
    expect(claims.jti).toMatch(/^ses_/);
    const balance = await t.request('GET', '/me/balance', { key: token });
    expect(balance.status).toBe(200);
    expect(balance.body.data).toEqual({ available: 0, pending: 0, blocked: 0 });
    expect(JSON.stringify(res.body)).not.toContain(u.password);
  });

  it('the same 401 message for an unknown e-mail and a wrong password', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const wrongPassword = await login(t, { email: u.email, password: 'wrong password!!' });
    const unknownEmail = await login(t, { email: 'nobody-at-all@example.com', password: u.password });
    expectError(wrongPassword, 401, 'UNAUTHORIZED', 'Invalid email or password');
    expectError(unknownEmail, 401, 'UNAUTHORIZED', 'Invalid email or password');
  });

  it('an invited user who has not accepted cannot log in', async () => {
    const m = await t.merchant();
    const invited = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email: 'pending@example.com', name: 'P', role: 'OWNER' });
    expect(invited.status).toBe(201);
    expectError(await login(t, { email: 'pending@example.com', password: 'anything at all' }), 401, 'UNAUTHORIZED', 'Invalid email or password');
  });

  it('five failures for one e-mail in 15 minutes: 429 RATE_LIMITED with Retry-After, even with the right password, until the window passes', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    for (let i = 0; i < 5; i++) expectError(await login(t, { email: u.email, password: `wrong password ${i}` }), 401, 'UNAUTHORIZED');
    const limited = await login(t, { email: u.email.toUpperCase(), password: u.password });
    expectError(limited, 429, 'RATE_LIMITED');
    const retry = Number(limited.headers['retry-after']);
    expect(retry).toBeGreaterThan(15 * 60 - 30);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    // Another e-mail is not affected.
    const other = await t.user(m.id);
    expect((await login(t, { email: other.email, password: other.password })).status).toBe(200);
    // The window passes (the failures age by 15 minutes): the right password logs in again.
    await t.pool.query(`UPDATE auth_failures SET at = at - interval '15 minutes' WHERE subject LIKE 'email:%'`);
    expect((await login(t, { email: u.email, password: u.password })).status).toBe(200);
  });

  it('unknown e-mails are throttled too, and a success clears the failures', async () => {
    for (let i = 0; i < 5; i++) expectError(await login(t, { email: 'ghost@example.com', password: 'wrong password' }), 401, 'UNAUTHORIZED');
    expectError(await login(t, { email: 'ghost@example.com', password: 'wrong password' }), 429, 'RATE_LIMITED');
    const m = await t.merchant();
    const u = await t.user(m.id);
    for (let i = 0; i < 4; i++) await login(t, { email: u.email, password: 'wrong password' });
    expect((await login(t, { email: u.email, password: u.password })).status).toBe(200);
    for (let i = 0; i < 4; i++) expectError(await login(t, { email: u.email, password: 'wrong password' }), 401, 'UNAUTHORIZED');
    expect((await login(t, { email: u.email, password: u.password })).status).toBe(200);
  });

  it('validates its body', async () => {
    expectError(await login(t, { email: 'a@example.com' }), 400, 'VALIDATION_ERROR', 'password: is required');
    expectError(await t.request('POST', '/auth/login', { payload: '{', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR', 'body: invalid JSON');
  });
});
