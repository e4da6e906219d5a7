import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db.js';
import { AppError } from '../../src/platform/errors.js';
import { upsertCallbackEndpoint } from '../../src/webhooks/callback-endpoint.service.js';
import { registrableUrl } from '../../src/webhooks/registrable-url.rules.js';
import { createEndpoint } from '../../src/webhooks/webhook.service.js';
import type { Resolver } from '../../src/webhooks/webhook-url.rules.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { Receiver } from './support/receiver.js';
import { deliveriesOf, emit, sleep } from './support/helpers.js';

// The production default: WEBHOOK_ALLOW_PRIVATE off.
let t: TestContext;
let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
  t = await createTestContext({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_RETRY_BASE_MS: '50' });
});
afterAll(async () => {
  await t?.close();
  await rx?.stop();
});

const events = ['CHARGE_PAID'];
const resolvesTo = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('URL rules without WEBHOOK_ALLOW_PRIVATE', () => {
  it('refuses http, loopback, private, link-local and metadata addresses', async () => {
    const m = await t.merchant();
    const cases: Array<[string, string]> = [
      ['http://hooks.example.com/x', 'url: must be an https URL'],
      ['https://127.0.0.1/x', 'url: must be a public address'],
      ['https://10.0.0.8/x', 'url: must be a public address'],
      ['https://192.168.1.1/x', 'url: must be a public address'],
      ['https://169.254.169.254/latest/meta-data', 'url: must be a public address'],
      ['https://100.64.0.1/x', 'url: must be a public address'],
      ['https://[::1]/x', 'url: must be a public address'],
      ['https://[::ffff:10.0.0.1]/x', 'url: must be a public address'],
      ['https://2130706433/x', 'url: must be a public address'],
      ['https://localhost/x', 'url: must be a public address'],
    ];
    for (const [url, message] of cases) {
      const res = await t.request('POST', '/webhooks', { key: m.key, body: { url, events } });
      expect(res.status, url).toBe(400);
      expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message, success: false });
    }
    expect((await t.request('GET', '/webhooks', { key: m.key })).body.data).toEqual([]);
  });

  it('accepts a public IP literal, and a name that does not resolve here (delivery checks it again)', async () => {
    const m = await t.merchant();
    for (const url of ['https://8.8.8.8/hook', 'https://hooks.pixgate-test.invalid/hook']) {
      const res = await t.request('POST', '/webhooks', { key: m.key, body: { url, events } });
      expect(res.status, url).toBe(201);
    }
  });

  it('refuses a name only when it resolves to a forbidden address', async () => {
    const m = await t.merchant();
    const input = (host: string) => ({ url: `https://${host}/hook`, events });
    await expect(createEndpoint(t.rt, m.id, input('a.example.com'), undefined, { resolver: resolvesTo('10.1.2.3') }))
      .rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'url: must be a public address' });
    await expect(createEndpoint(t.rt, m.id, input('b.example.com'), undefined, { resolver: resolvesTo('93.184.215.14', 'fd00::1') }))
      .rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'url: must be a public address' });
    const ok = await createEndpoint(t.rt, m.id, input('c.example.com'), undefined, { resolver: resolvesTo('93.184.215.14') });
    expect(ok.url).toBe('https://c.example.com/hook');
    const failing: Resolver = async () => { throw Object.assign(new Error('no dns'), { code: 'EAI_AGAIN' }); };
    expect((await createEndpoint(t.rt, m.id, input('d.example.com'), undefined, { resolver: failing })).url).toBe('https://d.example.com/hook');
  });

  it('names the field it checks for a clientCallbackUrl', async () => {
    await expect(registrableUrl('http://x.example.com/', { field: 'clientCallbackUrl', allowPrivate: false }))
      .rejects.toEqual(new AppError('VALIDATION_ERROR', 'clientCallbackUrl: must be an https URL'));
    expect(await registrableUrl('http://127.0.0.1:9/cb', { field: 'clientCallbackUrl', allowPrivate: true })).toBe('http://127.0.0.1:9/cb');
  });

  it('refuses to deliver to a private target at delivery time, without retrying', async () => {
    // An endpoint that could not be registered today (e.g. registered while private was allowed).
    const m = await t.merchant();
    const [plain, tls] = [rx.path(), rx.path()];
    const tlsUrl = rx.url(tls).replace('http://', 'https://');
    await withTransaction(t.pool, async (tx) => {
      await upsertCallbackEndpoint(tx, m.id, rx.url(plain));
      await upsertCallbackEndpoint(tx, m.id, tlsUrl);
    });
    const list = (await t.request('GET', '/webhooks', { key: m.key })).body.data as any[];
    const byUrl = (u: string) => list.find((e) => e.url === u).id as string;
    await emit(t, m.id, 'WITHDRAWAL_COMPLETED', { id: 'wd_1' });
    const [a] = await deliveriesOf(t, m.key, byUrl(rx.url(plain)), 1);
    const [b] = await deliveriesOf(t, m.key, byUrl(tlsUrl), 1);
    expect(a).toMatchObject({ attempt: 1, statusCode: null, success: false, error: 'blocked: url must be an https URL' });
    expect(b).toMatchObject({ attempt: 1, statusCode: null, success: false, error: 'blocked: url must be a public address' });
    await sleep(800);
    expect(rx.hits).toHaveLength(0);
    expect(await deliveriesOf(t, m.key, byUrl(tlsUrl), 1)).toHaveLength(1);
  });
});
