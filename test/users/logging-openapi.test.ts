import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHttp } from '../../src/composition.js';
import { createTestContext, ADMIN_TOKEN, type TestContext } from '../support/context.js';
import { tokenOf } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

it('logs never contain passwords, session tokens, cookies, TOTP codes or invitation tokens', async () => {
  const stream = new PassThrough();
  let logs = '';
  stream.on('data', (chunk) => (logs += chunk.toString()));
  const app = await buildHttp(t.rt, stream);
  const m = await t.merchant();
  const invited = await app.inject({
    method: 'POST', url: `/admin/merchants/${m.id}/users`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: { email: 'logged@example.com', name: 'L', role: 'OWNER' },
  });
  const invitation = tokenOf(invited.json().data.invitation.url);
  const password = 'secret password 123';
  await app.inject({ method: 'POST', url: `/auth/invitations/${invitation}/accept`, payload: { password } });
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'logged@example.com', password, totp: '654321' } });
  const token = login.json().data.token;
  await app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'logged@example.com', password: 'wrong password 456' } });
  await app.inject({ method: 'GET', url: '/me/balance', headers: { cookie: `pxg_session=${token}` } });
  await app.inject({ method: 'POST', url: '/me/password', headers: { authorization: `Bearer ${token}` }, payload: { currentPassword: password, newPassword: 'new secret password 789' } });
  await app.inject({ method: 'POST', url: '/me/totp/confirm', headers: { authorization: `Bearer ${token}` }, payload: { code: '112233' } });
  await app.close();
  expect(logs).toContain('/auth/invitations/*/accept');
  for (const secret of [invitation, password, 'wrong password 456', 'new secret password 789', token, token.split('.')[2]!, '654321', '112233']) {
    expect(logs).not.toContain(secret);
  }
});

it('every new route is in the OpenAPI document with its request and response schemas; merchant POSTs document Idempotency-Key', async () => {
  const doc = (await t.request('GET', '/openapi.json')).body;
  const op = (method: string, path: string) => doc.paths[path]?.[method];
  const withBody = [
    ['post', '/auth/login'], ['post', '/auth/invitations/{token}/accept'], ['post', '/me/users'], ['patch', '/me/users/{id}'],
    ['post', '/me/api-keys'], ['post', '/me/password'], ['post', '/me/totp/confirm'], ['delete', '/me/totp'], ['post', '/admin/merchants/{id}/users'],
  ];
  for (const [method, path] of withBody) {
    const o = op(method!, path!);
    expect(o, `${method} ${path}`).toBeDefined();
    expect(o.requestBody?.content?.['application/json']?.schema, `${method} ${path} request`).toBeDefined();
  }
  const all = [...withBody, ['post', '/auth/logout'], ['get', '/me/users'], ['delete', '/me/users/{id}'], ['get', '/me/api-keys'],
    ['delete', '/me/api-keys/{id}'], ['post', '/me/totp'], ['post', '/transparents/simulate-payment']];
  for (const [method, path] of all) {
    const responses = op(method!, path!)?.responses ?? {};
    const success = responses['200'] ?? responses['201'];
    expect(success?.content?.['application/json']?.schema, `${method} ${path} response`).toBeDefined();
  }
  const idempotent = (method: string, path: string) => (op(method, path).parameters ?? []).some((p: { name: string }) => p.name === 'Idempotency-Key');
  for (const path of ['/me/users', '/me/api-keys', '/me/password', '/me/totp', '/me/totp/confirm', '/transparents/simulate-payment']) expect(idempotent('post', path), path).toBe(true);
  for (const path of ['/auth/login', '/auth/logout', '/auth/invitations/{token}/accept']) expect(idempotent('post', path), path).toBe(false);
  expect(doc.components.securitySchemes).toMatchObject({ session: { scheme: 'bearer', bearerFormat: 'JWT' }, sessionCookie: { in: 'cookie', name: 'pxg_session' } });
});
