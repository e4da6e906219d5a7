import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { registrableUrl } from '../../src/webhooks/registrable-url.rules.js';

const checkCallbackUrl = (url: string, opts: Parameters<typeof registrableUrl>[1]) => registrableUrl(url, { ...opts, field: 'clientCallbackUrl' });
import { upsertCallbackEndpoint } from '../../src/webhooks/callback-endpoint.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { balanceOf, createWithdrawal, fundedMerchant } from './helpers.js';

// The real upsert keeps running; the spy records that creation calls it, with what, in which transaction.
vi.mock('../../src/webhooks/callback-endpoint.service.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/webhooks/callback-endpoint.service.js')>();
  return { ...real, upsertCallbackEndpoint: vi.fn(real.upsertCallbackEndpoint) };
});
const upsert = vi.mocked(upsertCallbackEndpoint);

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '600000', WEBHOOK_ALLOW_PRIVATE: 'false' }); });
afterAll(async () => { await t?.close(); });
beforeEach(() => { upsert.mockClear(); });

describe('clientCallbackUrl', () => {
  it('is stored normalised, its endpoint is upserted in the creating transaction, and its events go only there', async () => {
    const m = await fundedMerchant(t, 5000);
    const res = await createWithdrawal(t, m.key, { amount: 1000, clientCallbackUrl: 'HTTPS://Hooks.Example.COM:443/a/../cb?x=1' });
    expect(res.status, res.raw).toBe(201);
    const url = 'https://hooks.example.com/cb?x=1';
    expect(upsert).toHaveBeenCalledTimes(1);
    expect(upsert.mock.calls[0]!.slice(1)).toEqual([m.id, url]);
    const tx = upsert.mock.calls[0]![0];
    expect(tx).not.toBe(t.pool);
    const { rows } = await t.pool.query('SELECT callback_url FROM withdrawals WHERE id = $1', [res.body.data.id]);
    expect(rows[0].callback_url).toBe(url);
    const done = await t.admin('POST', `/admin/simulator/withdrawals/${res.body.data.id}/complete`);
    expect(done.status).toBe(200);
    const events = await t.pool.query('SELECT type, callback_url FROM events WHERE merchant_id = $1', [m.id]);
    expect(events.rows).toEqual([{ type: 'WITHDRAWAL_COMPLETED', callback_url: url }]);
    await t.assertLedger();
  });

  it('without one, no endpoint is touched and events go to the general endpoints', async () => {
    const m = await fundedMerchant(t, 5000);
    const res = await createWithdrawal(t, m.key, { amount: 1000 });
    expect(res.status).toBe(201);
    expect(upsert).not.toHaveBeenCalled();
    await t.admin('POST', `/admin/simulator/withdrawals/${res.body.data.id}/fail`);
    const events = await t.pool.query('SELECT type, callback_url FROM events WHERE merchant_id = $1', [m.id]);
    expect(events.rows).toEqual([{ type: 'WITHDRAWAL_FAILED', callback_url: null }]);
    await t.assertLedger();
  });

  it('a failing endpoint upsert undoes the whole creation (same transaction)', async () => {
    const m = await fundedMerchant(t, 5000);
    upsert.mockRejectedValueOnce(new Error('endpoint store unavailable'));
    const res = await createWithdrawal(t, m.key, { amount: 1000, clientCallbackUrl: 'https://hooks.example.com/cb' });
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('INTERNAL_ERROR');
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM withdrawals WHERE merchant_id = $1', [m.id]);
    expect(rows[0].n).toBe(0);
    expect(await balanceOf(t, m.key)).toEqual({ available: 5000, pending: 0, blocked: 0 });
    const retry = await createWithdrawal(t, m.key, { amount: 1000, clientCallbackUrl: 'https://hooks.example.com/cb' });
    expect(retry.status).toBe(201);
    await t.assertLedger();
  });
});

describe('clientCallbackUrl: the DNS answer', () => {
  const opts = { allowPrivate: false };
  it('refuses a name that resolves to a forbidden address', async () => {
    for (const address of ['10.0.0.5', '127.0.0.1', '169.254.169.254', '::1', 'fd00::1']) {
      const resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      await expect(checkCallbackUrl('https://hooks.example.com/cb', { ...opts, resolver }))
        .rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'clientCallbackUrl: must be a public address' });
    }
  });

  it('refuses when any one of several answers is forbidden', async () => {
    const resolver = async () => [{ address: '93.184.216.34', family: 4 }, { address: '192.168.1.1', family: 4 }];
    await expect(checkCallbackUrl('https://hooks.example.com/cb', { ...opts, resolver })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('accepts a public answer and a failed resolution, returning the normalised URL', async () => {
    const pub = async () => [{ address: '93.184.216.34', family: 4 }];
    expect(await checkCallbackUrl('https://HOOKS.example.com/x', { ...opts, resolver: pub })).toBe('https://hooks.example.com/x');
    const fails = async () => { throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }); };
    expect(await checkCallbackUrl('https://hooks.example.com/x', { ...opts, resolver: fails })).toBe('https://hooks.example.com/x');
  });

  it('with WEBHOOK_ALLOW_PRIVATE, private answers and http are allowed', async () => {
    const priv = async () => [{ address: '10.0.0.5', family: 4 }];
    expect(await checkCallbackUrl('http://hooks.internal/x', { allowPrivate: true, resolver: priv })).toBe('http://hooks.internal/x');
  });
});
