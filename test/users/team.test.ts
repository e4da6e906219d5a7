import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin.cli.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, invite, login, tokenOf } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ PUBLIC_URL: 'https://pay.example.com/' }, { worker: false }); });
afterAll(async () => { await t?.close(); });

const accept = (token: string, body: Record<string, unknown>) => t.request('POST', `/auth/invitations/${token}/accept`, { body });

describe('invitations', () => {
  it('the operator invites a first user: 201 {user, invitation: {url, expiresAt}}; the link is <PUBLIC_URL>/dashboard/invite/<token>, valid 72 h', async () => {
    const m = await t.merchant();
    const res = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email: 'Ana@Example.com', name: 'Ana', role: 'OWNER' });
    expect(res.status).toBe(201);
    expect(res.body.data.user).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Za-z]{22}$/), email: 'Ana@Example.com', name: 'Ana', role: 'OWNER', totpEnabled: false,
      createdAt: expect.any(String), lastLoginAt: null,
    });
    expect(res.body.data.invitation.url).toMatch(/^https:\/\/pay\.example\.com\/dashboard\/invite\/[0-9A-Za-z]{43}$/);
    const hours = (Date.parse(res.body.data.invitation.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    // Only the token's hash is stored.
    const { rows } = await t.pool.query('SELECT token_hash FROM invitations');
    expect(JSON.stringify(rows)).not.toContain(tokenOf(res.body.data.invitation.url));
  });

  it('accepting sets the password (and name): 200 the user; the link works once; unknown and expired links are 404', async () => {
    const m = await t.merchant();
    const res = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email: 'bia@example.com', name: 'B', role: 'DEVELOPER' });
    const token = tokenOf(res.body.data.invitation.url);
    expectError(await accept(token, { password: 'short' }), 400, 'VALIDATION_ERROR', 'password: must have at least 12 characters');
    expectError(await accept(token, { password: 'x'.repeat(129) }), 400, 'VALIDATION_ERROR', 'password: must have at most 128 characters');
    expectError(await accept(token, { password: 'BIA@example.com' }), 400, 'VALIDATION_ERROR', 'password: must not be the e-mail address');
    const ok = await accept(token, { password: 'a good long password', name: 'Beatriz' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ id: res.body.data.user.id, email: 'bia@example.com', name: 'Beatriz', role: 'DEVELOPER' });
    expect(ok.raw).not.toContain('password');
    expectError(await accept(token, { password: 'another long password' }), 404, 'NOT_FOUND');
    expect((await login(t, { email: 'bia@example.com', password: 'a good long password' })).status).toBe(200);
    expectError(await accept('nope', { password: 'a good long password' }), 404, 'NOT_FOUND');

    const late = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email: 'late@example.com', name: 'L', role: 'VIEWER' });
    await t.pool.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [late.body.data.user.id]);
    expectError(await accept(tokenOf(late.body.data.invitation.url), { password: 'a good long password' }), 404, 'NOT_FOUND');
  });

  it('an e-mail registered anywhere (any case) is 409 CONFLICT "email: already registered"; an unknown merchant is 404', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    expect((await t.admin('POST', `/admin/merchants/${a.id}/users`, { email: 'dup@example.com', name: 'D', role: 'OWNER' })).status).toBe(201);
    expectError(await t.admin('POST', `/admin/merchants/${b.id}/users`, { email: 'DUP@example.com', name: 'D', role: 'OWNER' }), 409, 'CONFLICT', 'email: already registered');
    const owner = await t.user(b.id);
    expectError(await t.request('POST', '/me/users', { key: owner.token, body: { email: 'Dup@Example.com', name: 'D', role: 'VIEWER' } }), 409, 'CONFLICT', 'email: already registered');
    expectError(await t.admin('POST', '/admin/merchants/mer_unknown/users', { email: 'x@example.com', name: 'X', role: 'OWNER' }), 404, 'NOT_FOUND');
    expectError(await t.admin('POST', `/admin/merchants/${a.id}/users`, { email: 'not-an-email', name: 'X', role: 'OWNER' }), 400, 'VALIDATION_ERROR', 'email: must be a valid e-mail');
    expectError(await t.admin('POST', `/admin/merchants/${a.id}/users`, { email: 'r@example.com', name: 'X', role: 'ADMIN' }), 400, 'VALIDATION_ERROR', 'role: must be one of OWNER, DEVELOPER, FINANCE, VIEWER');
  });

  it('the CLI `pixgate user invite` invites like the operator route', async () => {
    const m = await t.merchant();
    const out = await runAdminCommand(t.rt, ['user', 'invite', '--merchant', m.id, '--email', 'cli@example.com', '--name', 'Cli', '--role', 'FINANCE']) as any;
    expect(out.user).toMatchObject({ email: 'cli@example.com', role: 'FINANCE' });
    expect(out.invitation.url).toMatch(/^https:\/\/pay\.example\.com\/dashboard\/invite\//);
    await expect(runAdminCommand(t.rt, ['user', 'invite', '--merchant', m.id, '--email', 'c2@example.com', '--name', 'C', '--role', 'BOSS'])).rejects.toThrow(/--role/);
  });
});

describe('/me/users', () => {
  it('an OWNER invites teammates (Idempotency-Key replays the same link); every role lists the team, paginated', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const body = { email: 'team1@example.com', name: 'T1', role: 'VIEWER' };
    const first = await t.request('POST', '/me/users', { key: owner.token, body, headers: { 'idempotency-key': 'inv-1' } });
    expect(first.status).toBe(201);
    const replay = await t.request('POST', '/me/users', { key: owner.token, body, headers: { 'idempotency-key': 'inv-1' } });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    // The stored answer never holds the link in clear.
    const { rows } = await t.pool.query('SELECT body::text AS body FROM idempotency_keys');
    expect(rows.map((r) => r.body).join()).not.toContain(tokenOf(first.body.data.invitation.url));
    const viewerToken = tokenOf(first.body.data.invitation.url);
    expect((await accept(viewerToken, { password: 'viewer password 1' })).status).toBe(200);
    const viewer = (await login(t, { email: 'team1@example.com', password: 'viewer password 1' })).body.data.token;
    await invite(t, owner.token, { email: 'team2@example.com', name: 'T2', role: 'FINANCE' });

    const page1 = await t.request('GET', '/me/users?limit=2', { key: viewer });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((u: any) => u.email)).toEqual(['team2@example.com', 'team1@example.com']);
    expect(page1.body.pagination).toMatchObject({ hasMore: true, before: null });
    const page2 = await t.request('GET', `/me/users?limit=2&after=${page1.body.pagination.next}`, { key: viewer });
    expect(page2.body.data.map((u: any) => u.id)).toEqual([owner.id]);
    expect(page2.body.pagination.hasMore).toBe(false);
    expectError(await t.request('GET', '/me/users?after=tampered', { key: viewer }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
    // Another merchant's team is not listed.
    const other = await t.merchant();
    const stranger = await t.user(other.id);
    expect((await t.request('GET', '/me/users', { key: stranger.token })).body.data.map((u: any) => u.id)).toEqual([stranger.id]);
  });

  it('an API key gets 403 on every /me/users route, reads included', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    expectError(await t.request('GET', '/me/users', { key: m.key }), 403, 'FORBIDDEN');
    expectError(await t.request('POST', '/me/users', { key: m.key, body: { email: 'k@example.com', name: 'K', role: 'VIEWER' } }), 403, 'FORBIDDEN');
    expectError(await t.request('PATCH', `/me/users/${owner.id}`, { key: m.key, body: { role: 'VIEWER' } }), 403, 'FORBIDDEN');
    expectError(await t.request('DELETE', `/me/users/${owner.id}`, { key: m.key }), 403, 'FORBIDDEN');
  });

  it('PATCH changes a role and DELETE removes a user; another merchant\'s user is 404', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const dev = await t.user(m.id, 'DEVELOPER');
    const patched = await t.request('PATCH', `/me/users/${dev.id}`, { key: owner.token, body: { role: 'FINANCE' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: dev.id, role: 'FINANCE' });
    expectError(await t.request('PATCH', `/me/users/${dev.id}`, { key: owner.token, body: { role: 'GOD' } }), 400, 'VALIDATION_ERROR');
    const other = await t.merchant();
    const stranger = await t.user(other.id, 'VIEWER');
    expectError(await t.request('PATCH', `/me/users/${stranger.id}`, { key: owner.token, body: { role: 'OWNER' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `/me/users/${stranger.id}`, { key: owner.token }), 404, 'NOT_FOUND');
    const removed = await t.request('DELETE', `/me/users/${dev.id}`, { key: owner.token });
    expect(removed.status).toBe(200);
    expect((await t.request('GET', '/me/users', { key: owner.token })).body.data.map((u: any) => u.id)).toEqual([owner.id]);
    expectError(await login(t, { email: dev.email, password: dev.password }), 401, 'UNAUTHORIZED', 'Invalid email or password');
    // The e-mail is free again.
    expect((await t.request('POST', '/me/users', { key: owner.token, body: { email: dev.email, name: 'Again', role: 'VIEWER' } })).status).toBe(201);
  });

  it('the last OWNER can be neither demoted nor removed; with a second OWNER both work', async () => {
    const m = await t.merchant();
    const owner = await t.user(m.id);
    const lastOwner = 'role: the last OWNER cannot be removed or demoted';
    expectError(await t.request('PATCH', `/me/users/${owner.id}`, { key: owner.token, body: { role: 'DEVELOPER' } }), 400, 'VALIDATION_ERROR', lastOwner);
    expectError(await t.request('DELETE', `/me/users/${owner.id}`, { key: owner.token }), 400, 'VALIDATION_ERROR', lastOwner);
    const second = await t.user(m.id, 'OWNER');
    // Two demotions at once: exactly one succeeds. The other is refused as the last OWNER, or — when the
    // winner's role change ended its session before it was authenticated — 401.
    const both = await Promise.all([
      t.request('PATCH', `/me/users/${owner.id}`, { key: second.token, body: { role: 'VIEWER' } }),
      t.request('PATCH', `/me/users/${second.id}`, { key: owner.token, body: { role: 'VIEWER' } }),
    ]);
    const [won, lost] = both.map((r) => r.status).sort();
    expect(won).toBe(200);
    expect([400, 401]).toContain(lost);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM users WHERE merchant_id = $1 AND role = 'OWNER'`, [m.id]);
    expect(rows[0].n).toBe(1);
  });
});
