import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, login, totpCode } from './support.js';

const jsQR = jsQRModule.default;
let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const STEP = 30_000;
/** Waits, if needed, until the current 30 s step has at least 15 s left, so codes of "now ± 1 step" stay valid for the test. */
async function freshStep(): Promise<number> {
  const into = Date.now() % STEP;
  if (into > 15_000) await new Promise((r) => setTimeout(r, STEP - into + 50));
  return Date.now();
}

function decodeQr(dataUrl: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data;
}

describe('TOTP', () => {
  it('enrol, confirm, log in with a code (each code once), disable', { timeout: 60_000 }, async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'VIEWER');
    const enrol = await t.request('POST', '/me/totp', { key: u.token });
    expect(enrol.status).toBe(200);
    const { secret, otpauthUrl, qrImageBase64 } = enrol.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/Pixgate:.+\?.*secret=[A-Z2-7]{32}/);
    expect(otpauthUrl).toContain('algorithm=SHA1');
    expect(otpauthUrl).toContain('digits=6');
    expect(otpauthUrl).toContain('period=30');
    expect(decodeQr(qrImageBase64)).toBe(otpauthUrl);
    // Stored sealed: the database never holds the secret in clear.
    const { rows } = await t.pool.query('SELECT totp_secret, totp_enabled FROM users WHERE id = $1', [u.id]);
    expect(rows[0].totp_secret).not.toContain(secret);
    expect(rows[0].totp_enabled).toBe(false);
    // Not on until confirmed: login needs no code yet.
    expect((await login(t, { email: u.email, password: u.password })).status).toBe(200);

    const t0 = await freshStep();
    expectError(await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: '000000' === totpCode(secret, t0) ? '111111' : '000000' } }), 400, 'VALIDATION_ERROR', 'code: invalid');
    expectError(await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: totpCode(secret, t0 - 3 * STEP) } }), 400, 'VALIDATION_ERROR', 'code: invalid');
    // One step of drift is accepted.
    const confirmed = await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: totpCode(secret, t0 - STEP) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({ id: u.id, totpEnabled: true });
    expectError(await t.request('POST', '/me/totp', { key: u.token }), 400, 'INVALID_STATE');

    expectError(await login(t, { email: u.email, password: u.password }), 401, 'UNAUTHORIZED', 'totp: required');
    expectError(await login(t, { email: u.email, password: u.password, totp: 'abcdef' }), 401, 'UNAUTHORIZED', 'totp: invalid');
    // The code used to confirm is refused: a code is used once.
    expectError(await login(t, { email: u.email, password: u.password, totp: totpCode(secret, t0 - STEP) }), 401, 'UNAUTHORIZED', 'totp: invalid');
    // A wrong password with a right code is still the generic message.
    expectError(await login(t, { email: u.email, password: 'not the password', totp: totpCode(secret, t0) }), 401, 'UNAUTHORIZED', 'Invalid email or password');
    const ok = await login(t, { email: u.email, password: u.password, totp: totpCode(secret, t0) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.totpEnabled).toBe(true);
    expectError(await login(t, { email: u.email, password: u.password, totp: totpCode(secret, t0) }), 401, 'UNAUTHORIZED', 'totp: invalid');

    const session = ok.body.data.token;
    expectError(await t.request('DELETE', '/me/totp', { key: session, body: { code: totpCode(secret, t0) } }), 400, 'VALIDATION_ERROR', 'code: invalid');
    const off = await t.request('DELETE', '/me/totp', { key: session, body: { code: totpCode(secret, t0 + STEP) } });
    expect(off.status).toBe(200);
    expect(off.body.data.totpEnabled).toBe(false);
    expect((await login(t, { email: u.email, password: u.password })).status).toBe(200);
    expectError(await t.request('DELETE', '/me/totp', { key: session, body: { code: '123456' } }), 400, 'INVALID_STATE');
  });

  it('"totp: required" does not count as a failed login; wrong codes do', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id);
    const { secret } = (await t.request('POST', '/me/totp', { key: u.token })).body.data;
    const t0 = await freshStep();
    expect((await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: totpCode(secret, t0) } })).status).toBe(200);
    for (let i = 0; i < 6; i++) expectError(await login(t, { email: u.email, password: u.password }), 401, 'UNAUTHORIZED', 'totp: required');
    for (let i = 0; i < 5; i++) expectError(await login(t, { email: u.email, password: u.password, totp: '000001' }), 401, 'UNAUTHORIZED');
    expectError(await login(t, { email: u.email, password: u.password, totp: totpCode(secret, t0 + STEP) }), 429, 'RATE_LIMITED');
  });

  it('an API key cannot enrol (403); the routes validate their body', async () => {
    const m = await t.merchant();
    expectError(await t.request('POST', '/me/totp', { key: m.key }), 403, 'FORBIDDEN');
    const u = await t.user(m.id);
    expectError(await t.request('POST', '/me/totp/confirm', { key: u.token, body: {} }), 400, 'VALIDATION_ERROR', 'code: is required');
    expectError(await t.request('POST', '/me/totp/confirm', { key: u.token, body: { code: '123456' } }), 400, 'INVALID_STATE');
  });
});
