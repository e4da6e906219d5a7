import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError } from '../charges/support.js';
import { decodeQr } from '../dashboard/helpers.js';
import { createLink } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const draft = {
  name: 'Curso de pão <b>artesanal</b>', description: 'Sábado, 9h', items: [{ name: 'Aula', quantity: 1, unitPrice: 15_000 }, { name: 'Farinha', quantity: 2, unitPrice: 1_250 }],
  customerFields: ['name', 'taxId'],
};
const mainOf = (html: string) => /<main id="main">[\s\S]*<\/main>/.exec(html)?.[0];
const rows = async (table: string) => Number((await t.pool.query(`SELECT count(*) FROM ${table}`)).rows[0].count);

describe('POST /payment-link-preview (docs/contract/checkouts.md#previews)', () => {
  it('is the link page a create of the same body makes, rendered by the same code, and writes nothing', async () => {
    const m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Padaria Pão Quente' } });
    await t.request('PUT', '/me/branding', { key: m.key, body: { primaryColor: '#8a3b12' } });
    const before = await rows('payment_links');
    const res = await t.app.inject({ method: 'POST', url: '/payment-link-preview', headers: { authorization: `Bearer ${m.key}` }, payload: draft });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(await rows('payment_links')).toBe(before);
    const html = res.body;
    expect(html).toContain('Prévia: é assim que o pagador verá a página');
    expect(html).toContain('Curso de pão &lt;b&gt;artesanal&lt;/b&gt;');
    expect(html).toContain('R$ 175,00');
    expect(html).toContain('Padaria Pão Quente');
    expect(html).toContain('--brand:#8a3b12');
    expect(html).not.toContain('<script'); // shown in a frame without scripts: none is sent

    const link = await createLink(t, m, draft);
    const real = (await t.app.inject({ url: `/l/${link.id}` })).body;
    expect(mainOf(html)!.replace('/l/plk_preview', `/l/${link.id}`)).toBe(mainOf(real));

    const english = await t.app.inject({ method: 'POST', url: '/payment-link-preview?lang=en', headers: { authorization: `Bearer ${m.key}` }, payload: { name: 'Bread', amountRange: { min: 500, max: 10_000 } } });
    expect(english.body).toContain('Preview: this is how the payer will see the page');
    expect(english.body).toContain('Between R$ 5,00 and R$ 100,00.');
  });

  it('refuses what the create schema refuses, as an envelope; roles as creating a link', async () => {
    const m = await t.merchant();
    expectError(await t.request('POST', '/payment-link-preview', { key: m.key, body: { amount: 1000 } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/payment-link-preview', { key: m.key, body: { name: 'x', amount: 10.5 } }), 400, 'VALIDATION_ERROR');
    for (const role of ['OWNER', 'DEVELOPER', 'FINANCE']) {
      const u = await t.user(m.id, role);
      expect((await t.app.inject({ method: 'POST', url: '/payment-link-preview', headers: { authorization: `Bearer ${u.token}` }, payload: { name: role, amount: 1000 } })).statusCode).toBe(200);
    }
    const viewer = await t.user(m.id, 'VIEWER');
    expectError(await t.request('POST', '/payment-link-preview', { key: viewer.token, body: { name: 'x', amount: 1000 } }), 403, 'FORBIDDEN');
  });
});

describe('POST /me/branding/preview', () => {
  it('shows a sample link page under the draft branding (a new logo from its data URL) and saves nothing', async () => {
    const m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Mercado Azul' } });
    const saved = (await t.request('PUT', '/me/branding', { key: m.key, body: { displayName: 'Mercado Azul Ltda', primaryColor: '#123456', logo: PNG } })).body.data;
    const preview = async (body: object) => t.app.inject({ method: 'POST', url: '/me/branding/preview', headers: { authorization: `Bearer ${m.key}` }, payload: body });

    const drafted = await preview({ displayName: 'Azul <i>Mercado</i>', primaryColor: '#FFCC00', logo: PNG });
    expect(drafted.statusCode).toBe(200);
    expect(drafted.body).toContain('Azul &lt;i&gt;Mercado&lt;/i&gt;');
    expect(drafted.body).toContain('--brand:#ffcc00;--brand-text:#111111'); // dark text on a light colour
    expect(drafted.body).toContain(`src="${PNG}"`);
    expect(drafted.body).toContain('Produto de exemplo');
    expect((await t.request('GET', '/me/branding', { key: m.key })).body.data).toEqual(saved);

    const kept = await preview({});
    expect(kept.body).toContain('Mercado Azul Ltda');
    expect(kept.body).toContain(`src="${new URL(saved.logoUrl).pathname}"`);
    const cleared = await preview({ displayName: null, logo: null, primaryColor: null });
    expect(cleared.body).toContain('<span class="store-name">Mercado Azul</span>');
    expect(cleared.body).not.toContain('class="logo"');
  });

  it('refuses what PUT refuses; FINANCE and VIEWER may not', async () => {
    const m = await t.merchant();
    expectError(await t.request('POST', '/me/branding/preview', { key: m.key, body: { logo: `data:image/png;base64,${Buffer.from('GIF89a').toString('base64')}` } }),
      400, 'VALIDATION_ERROR', 'logo: is not a PNG image');
    expectError(await t.request('POST', '/me/branding/preview', { key: m.key, body: { primaryColor: 'red' } }), 400, 'VALIDATION_ERROR');
    for (const role of ['FINANCE', 'VIEWER']) {
      const u = await t.user(m.id, role);
      expectError(await t.request('POST', '/me/branding/preview', { key: u.token, body: {} }), 403, 'FORBIDDEN');
    }
  });
});

describe('GET /payment-links/{id}/qr-code', () => {
  it('is the link URL as a QR image (it decodes to the URL); every role reads it; another merchant gets 404', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 2500 });
    const viewer = await t.user(m.id, 'VIEWER');
    const res = await t.request('GET', `/payment-links/${link.id}/qr-code`, { key: viewer.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['imageBase64', 'url']);
    expect(res.body.data.url).toBe(link.url);
    expect(res.body.data.imageBase64).toMatch(/^data:image\/png;base64,/);
    expect(decodeQr(res.body.data.imageBase64.replace(/^data:image\/png;base64,/, ''))).toBe(link.url);
    const other = await t.merchant();
    expectError(await t.request('GET', `/payment-links/${link.id}/qr-code`, { key: other.key }), 404, 'NOT_FOUND');
  });
});
