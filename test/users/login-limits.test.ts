// docs/contract/access.md#login-limits (per client address; second factor and current password) and #login (logout).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type Reply, type TestContext } from '../support/context.js';
import { expectError, totpCode } from './support.js';

let t: TestContext;
// Behind a proxy: the client address is X-Forwarded-For's, so each test can speak from addresses of its own.
beforeAll(async () => { t = await createTestContext({ TRUST_PROXY: 'true' }, { worker: false }); });
afterAll(async () => { await t?.close(); });

const loginFrom = (address: string, body: Record<string, unknown>) =>
  t.request('POST', '/auth/login', { body, headers: { 'x-forwarded-for': address } });
// E-mails of their own per address, so the per-e-mail limit never answers first.
const wrong = (address: string, i: number) => loginFrom(address, { email: `nobody-${i}-${address.replaceAll(':', '.')}@example.com`, password: 'wrong password' });

function expectLimited(res: Reply, upTo: number): void {
  expectError(res, 429, 'RATE_LIMITED');
  const retry = Number(res.headers['retry-after']);
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(upTo);
}

describe('login per client address', () => {
  it('20 failed logins a minute across e-mails, then 429 with Retry-After, even with the right password; other addresses go on', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    for (let i = 0; i < 19; i++) expectError(await wrong('203.0.113.1', i), 401, 'UNAUTHORIZED', 'Invalid email or password');
    // A real user's wrong password counts the same as an unknown e-mail.
    expectError(await loginFrom('203.0.113.1', { email: u.email, password: 'wrong password' }), 401, 'UNAUTHORIZED');
    expectLimited(await wrong('203.0.113.1', 99), 60);
    expectLimited(await loginFrom('203.0.113.1', { email: u.email, password: u.password }), 60);
    expect((await loginFrom('203.0.113.2', { email: u.email, password: u.password })).status).toBe(200);
    // The minute passes: the address may try again.
    await t.pool.query(`UPDATE auth_failures SET at = at - interval '1 minute' WHERE subject LIKE 'address:%'`);
    expect((await loginFrom('203.0.113.1', { email: u.email, password: u.password })).status).toBe(200);
  });

  it('a burst of parallel guesses from one address: exactly 20 are answered 401, the rest 429', async () => {
    const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => wrong('198.51.100.7', i)));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(20);
    for (const a of answers.filter((x) => x.status !== 401)) expectLimited(a, 60);
  });

  it('wrong or missing TOTP codes, right passwords and 429 answers do not count', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const secret = (await t.request('POST', '/me/totp', { key: u.token })).body.data.secret;
    expect((await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: totpCode(secret) } })).status).toBe(200);
    const from = '192.0.2.44';
    for (let i = 0; i < 19; i++) expectError(await wrong(from, i), 401, 'UNAUTHORIZED');
    for (let i = 0; i < 6; i++) expectError(await loginFrom(from, { email: u.email, password: u.password }), 401, 'UNAUTHORIZED', 'totp: required');
    for (let i = 0; i < 3; i++) expectError(await loginFrom(from, { email: u.email, password: u.password, totp: 'abcdef' }), 401, 'UNAUTHORIZED', 'totp: invalid');
    expectError(await wrong(from, 19), 401, 'UNAUTHORIZED'); // the 20th failure
    for (let i = 0; i < 3; i++) expectLimited(await wrong(from, 20 + i), 60);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM auth_failures WHERE subject = $1`, [`address:${from}`]);
    expect(rows[0].n).toBe(20);
  });

  it('an IPv6 client is counted by its /64', async () => {
    for (let i = 0; i < 20; i++) expectError(await wrong(`2001:db8:1:2::${(i + 1).toString(16)}`, i), 401, 'UNAUTHORIZED');
    expectLimited(await wrong('2001:db8:1:2:ffff::1', 20), 60);
    expectError(await wrong('2001:db8:1:3::1', 21), 401, 'UNAUTHORIZED');
  });
});

describe('second factor and current password: 5 wrong answers per user in 15 minutes', () => {
  it('wrong current passwords and TOTP codes count together; then 429 on /me/password and /me/totp*, right answers included, until the window passes', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const other = await t.user(m.id);
    const secret = (await t.request('POST', '/me/totp', { key: u.token })).body.data.secret;
    const change = (currentPassword: string) => t.request('POST', '/me/password', { key: u.token, body: { currentPassword, newPassword: 'a brand new passphrase' } });
    for (let i = 0; i < 3; i++) expectError(await change(`wrong password ${i}`), 400, 'VALIDATION_ERROR', 'currentPassword: invalid');
    for (const code of ['000000', '999999']) {
      if (code === totpCode(secret)) continue; // one in a million: a wrong code that happens to be right
      expectError(await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code } }), 400, 'VALIDATION_ERROR', 'code: invalid');
    }
    expectLimited(await change(u.password), 15 * 60);
    expectLimited(await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: totpCode(secret) } }), 15 * 60);
    expectLimited(await t.request('POST', '/me/totp', { key: u.token }), 15 * 60);
    expectLimited(await t.request('DELETE', '/me/totp', { key: u.token, body: { code: totpCode(secret) } }), 15 * 60);
    // Another user of the store is not affected.
    expect((await t.request('POST', '/me/password', { key: other.token, body: { currentPassword: other.password, newPassword: 'a brand new passphrase' } })).status).toBe(200);
    await t.pool.query(`UPDATE auth_failures SET at = at - interval '15 minutes' WHERE subject = $1`, [`user:${u.id}`]);
    expect((await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: totpCode(secret) } })).status).toBe(200);
    expect((await change(u.password)).status).toBe(200);
  });

  it('right answers do not count; parallel wrong ones cannot all pass the count', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const change = (currentPassword: string, newPassword: string) => t.request('POST', '/me/password', { key: u.token, body: { currentPassword, newPassword } });
    expect((await change(u.password, 'second passphrase ok')).status).toBe(200);
    expect((await change('second passphrase ok', u.password)).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => change(`wrong password ${i}`, 'never used passphrase')));
    expect(answers.filter((a) => a.status === 400)).toHaveLength(5);
    for (const a of answers.filter((x) => x.status !== 400)) expectLimited(a, 15 * 60);
  });
});

describe('POST /auth/logout takes a session only, refused before any lookup', () => {
  it('an API key (valid, even of a suspended store), garbage or nothing: 401, and the key is not looked up', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const created = await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: 'never used' } });
    expect(created.status).toBe(201);
    for (const headers of <Array<Record<string, string>>>[
      { authorization: `Bearer ${created.body.data.key}` },
      { authorization: `Bearer pxg_${'x'.repeat(40)}` },
      { authorization: 'Bearer garbage' },
      { authorization: 'Basic Zm9vOmJhcg==' },
      {},
    ]) expectError(await t.request('POST', '/auth/logout', { headers }), 401, 'UNAUTHORIZED');
    // A lookup of the key would have recorded its use.
    await new Promise((r) => setTimeout(r, 300));
    const keys = (await t.request('GET', '/me/api-keys', { key: owner.token })).body.data;
    expect(keys.find((k: { id: string }) => k.id === created.body.data.id).lastUsedAt).toBeNull();
    // A suspended store's key would be 403 once found; refused before the lookup it is 401 like any other.
    expect((await t.admin('PATCH', `/admin/merchants/${m.id}`, { suspended: true })).status).toBe(200);
    expectError(await t.request('POST', '/auth/logout', { key: m.key }), 401, 'UNAUTHORIZED');
    // The session itself still logs out.
    const other = await t.merchant();
    const u = await t.user(other.id);
    expect((await t.request('POST', '/auth/logout', { key: u.token })).status).toBe(200);
  });
});
