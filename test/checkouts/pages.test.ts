import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { expectError, pay, validTaxId } from '../charges/support.js';
import { createCheckout, LOGO_PNG } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const page = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });

describe('the payment page', () => {
  it('is public, strict in its headers, shows the first name only and the amounts in reais', async () => {
    const m = await t.merchant();
    const customer = (await t.request('POST', '/customers', { key: m.key, body: { email: 'ana@example.com', name: 'Ana Maria Souza', taxId: validTaxId(), phone: '+5511999990000' } })).body.data;
    const k = await createCheckout(t, m, { customerId: customer.id, items: [{ name: 'Café <script>alert(1)</script>', quantity: 1, unitPrice: 123_456 }] });
    const res = await page(`/pay/${k.id}`);
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers).toMatchObject({ 'referrer-policy': 'no-referrer', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    expect(res.body).not.toMatch(/<script>(?!<\/script>)/);
    expect(res.body).toContain('Café &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.body).toContain('Olá, Ana!');
    for (const secret of ['Souza', 'Maria', customer.taxId, 'ana@example.com', '999990000', customer.id]) expect(res.body).not.toContain(secret);
    expect(res.body).toContain('R$ 1.234,56');
    expect(res.body).toContain(k.brCode.replace(/&/g, '&amp;'));
    expect(res.body).toContain('Simular pagamento');
    expect(res.body).toContain('lang="pt-BR"');
    expect((await page(`/pay/${k.id}?lang=en`)).body).toContain('Pay with PIX');
    expect((await page(`/pay/${k.id}`, { 'accept-language': 'en-US,en;q=0.9,pt;q=0.5' })).body).toContain('lang="en"');
    expect((await page(`/pay/${k.id}`, { 'accept-language': 'fr-FR,pt-BR;q=0.8,en;q=0.5' })).body).toContain('lang="pt-BR"');
  });

  it('unknown, malformed or hostile ids: a 404 page, and 404 NOT_FOUND from the JSON routes', async () => {
    for (const id of ['chk_doesnotexist0000000000', 'chk_', '../etc/passwd', "chk_' OR 1=1 --", 'x'.repeat(90)]) {
      const res = await page(`/pay/${encodeURIComponent(id)}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
    }
    expect((await page('/pay/chk_doesnotexist00000000000/status')).json()).toMatchObject({ error: 'NOT_FOUND' });
    expect((await page('/l/plk_doesnotexist00000000000')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/l/plk_doesnotexist00000000000/checkouts', payload: {} })).statusCode).toBe(404);
    // Ids longer than any route parameter: still the 404 page (or 404 NOT_FOUND from a JSON route), never a JSON 400.
    for (const long of ['x'.repeat(101), `chk_${'A'.repeat(500)}`]) {
      for (const [method, url] of [['GET', `/pay/${long}`], ['GET', `/l/${long}`], ['POST', `/l/${long}`], ['POST', `/pay/${long}/simulate`], ['GET', `/pay/logos/${long}`]] as const) {
        const res = await t.app.inject({ method, url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: method === 'POST' ? '' : undefined });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers['content-type'], url).toContain('text/html');
        expect(res.headers['content-security-policy'], url).toContain("script-src 'self'");
      }
      expect((await page(`/pay/${long}/status`)).json(), long).toMatchObject({ error: 'NOT_FOUND' });
      expect((await page(`/pay/${long}/events`)).json(), long).toMatchObject({ error: 'NOT_FOUND' });
      expect((await t.app.inject({ method: 'POST', url: `/l/${long}/checkouts`, payload: {} })).json(), long).toMatchObject({ error: 'NOT_FOUND' });
    }
    const badEncoding = await page('/pay/chk_%zz');
    expect([badEncoding.statusCode, badEncoding.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    expect((await page('/pay/chk_%zz/status')).json()).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('GET /pay/{id}/status and the event stream follow the charge; simulate pays and returns to the page (303)', async () => {
    const m = await t.merchant();
    const k = await createCheckout(t, m, { completionUrl: 'https://loja.example/fim?pedido=7' });
    expect((await page(`/pay/${k.id}/status`)).json().data).toEqual({ status: 'PENDING', paidAt: null, expiresAt: k.expiresAt });
    const sim = await t.app.inject({ method: 'POST', url: `/pay/${k.id}/simulate`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(sim.statusCode).toBe(303);
    expect(sim.headers.location).toBe(`/pay/${k.id}`);
    const status = (await page(`/pay/${k.id}/status`)).json().data;
    expect(status.status).toBe('PAID');
    const stream = await page(`/pay/${k.id}/events`);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(stream.body).toContain(`data: ${JSON.stringify(status)}`);
    const paid = await page(`/pay/${k.id}`);
    expect(paid.body).toContain(`href="https://loja.example/fim?pedido=7&amp;checkoutId=${k.id}"`);
    expect(paid.body).toContain('Pagamento confirmado');
    await t.assertLedger();
  });

  it('an expired checkout from a link has a button that starts a new checkout (its link page when the link asks the payer for something)', async () => {
    const m = await t.merchant();
    const expire = (checkoutId: string) => t.pool.query(
      "UPDATE charges SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE checkout_id = $1", [checkoutId]);
    const start = async (linkId: string, body: Record<string, unknown> = {}) => {
      const made = await t.app.inject({ method: 'POST', url: `/l/${linkId}/checkouts`, payload: body });
      expect(made.statusCode, made.body).toBe(201);
      await expire(made.json().data.id);
      return made.json().data.id as string;
    };

    // A set price and no customer fields: the button is the link form's own POST, and lands on a new checkout's page.
    const fixed = (await t.request('POST', '/payment-links', { key: m.key, body: { name: 'Bolo', amount: 3500 } })).body.data;
    const old = await start(fixed.id);
    const expired = await page(`/pay/${old}`);
    expect(expired.body).toContain('Gerar novo pagamento');
    expect(expired.body).toMatch(new RegExp(`<form[^>]*method="post" action="/l/${fixed.id}"[^>]*><button type="submit"[^>]*>Gerar novo pagamento</button>`));
    const again = await t.app.inject({ method: 'POST', url: `/l/${fixed.id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(again.statusCode).toBe(303);
    const fresh = String(again.headers.location).replace('/pay/', '');
    expect(fresh).not.toBe(old);
    expect((await t.request('GET', `/checkouts/${fresh}`, { key: m.key })).body.data).toMatchObject({ status: 'PENDING', paymentLinkId: fixed.id, amount: 3500 });
    expect((await page(`/pay/${old}?lang=en`)).body).toMatch(new RegExp(`action="/l/${fixed.id}\\?lang=en"[^>]*><button type="submit"[^>]*>Start a new payment</button>`));

    // The payer types the amount: the button opens the link page (a GET form, keeping the language).
    const range = (await t.request('POST', '/payment-links', { key: m.key, body: { name: 'Doação', amountRange: { min: 500, max: 5000 } } })).body.data;
    const ranged = await start(range.id, { amount: 700 });
    expect((await page(`/pay/${ranged}`)).body).toMatch(new RegExp(`<form[^>]*method="get" action="/l/${range.id}"[^>]*><button type="submit"`));
    expect((await page(`/pay/${ranged}?lang=en`)).body).toMatch(new RegExp(`action="/l/${range.id}"[^>]*><input type="hidden" name="lang" value="en"><button`));

    // A checkout made by the API, not from a link, has no such button.
    const plain = await createCheckout(t, m);
    await expire(plain.id);
    expect((await page(`/pay/${plain.id}`)).body).not.toContain('Gerar novo pagamento');
  });

  it('returnUrl is the way back to the store while unpaid and once expired; never on a paid page, nor without one', async () => {
    const m = await t.merchant();
    const back = /<a class="link back" href="https:\/\/loja\.example\/carrinho\?x=1&amp;y=2" rel="noreferrer">Voltar para a loja<\/a>/;
    const k = await createCheckout(t, m, { returnUrl: 'https://loja.example/carrinho?x=1&y=2' });
    expect((await page(`/pay/${k.id}`)).body).toMatch(back);
    expect((await page(`/pay/${k.id}?lang=en`)).body).toContain('Back to the store');
    await t.pool.query("UPDATE charges SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE checkout_id = $1", [k.id]);
    expect((await page(`/pay/${k.id}`)).body).toMatch(back);
    const paid = await createCheckout(t, m, { returnUrl: 'https://loja.example/carrinho?x=1&y=2' });
    await pay(t, paid.chargeId);
    expect((await page(`/pay/${paid.id}`)).body).not.toContain('Voltar para a loja');
    expect((await page(`/pay/${(await createCheckout(t, m)).id}`)).body).not.toContain('Voltar para a loja');
  });

  it('a refunded checkout says its money was returned', async () => {
    const m = await t.merchant();
    const k = await createCheckout(t, m);
    await pay(t, k.chargeId);
    await t.request('POST', `/checkouts/${k.id}/refund`, { key: m.key });
    expect((await page(`/pay/${k.id}`)).body).toContain('Pagamento devolvido');
    await t.assertLedger();
  });
});

describe('branding', () => {
  it('defaults to the store name; PUT keeps left-out fields, null clears; the logo is served by Pixgate', async () => {
    const m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Mercado Azul' } });
    expect((await t.request('GET', '/me/branding', { key: m.key })).body.data).toEqual({ displayName: 'Mercado Azul', primaryColor: null, logoUrl: null });
    const put = await t.request('PUT', '/me/branding', { key: m.key, body: { displayName: 'Azul', primaryColor: '#1A5FB4', logo: LOGO_PNG } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ displayName: 'Azul', primaryColor: '#1a5fb4' });
    expect(put.body.data.logoUrl).toMatch(/\/pay\/logos\/logo_[0-9A-Za-z]{22}$/);
    const logo = await page(new URL(put.body.data.logoUrl).pathname);
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.rawPayload.equals(Buffer.from(LOGO_PNG.split(',')[1]!, 'base64'))).toBe(true);
    const k = await createCheckout(t, m);
    const html = (await page(`/pay/${k.id}`)).body;
    expect(html).toContain('--brand:#1a5fb4');
    expect(html).toContain(`src="${new URL(put.body.data.logoUrl).pathname}"`);
    const kept = await t.request('PUT', '/me/branding', { key: m.key, body: { primaryColor: null } });
    expect(kept.body.data).toEqual({ displayName: 'Azul', primaryColor: null, logoUrl: put.body.data.logoUrl });
    const cleared = await t.request('PUT', '/me/branding', { key: m.key, body: { displayName: null, logo: null } });
    expect(cleared.body.data).toEqual({ displayName: 'Mercado Azul', primaryColor: null, logoUrl: null });
    expect((await page(new URL(put.body.data.logoUrl).pathname)).statusCode).toBe(404);
  });

  it.each([
    [{ primaryColor: 'blue' }, undefined],
    [{ displayName: 'x'.repeat(61) }, undefined],
    [{ logo: 'https://cdn.example/logo.png' }, 'logo: must be a data URL of a PNG or JPEG image'],
    [{ logo: `data:image/png;base64,${Buffer.from('GIF89a').toString('base64')}` }, 'logo: is not a PNG image'],
    [{ logo: `data:image/jpeg;base64,${Buffer.alloc(102_401, 0xff).toString('base64')}` }, undefined],
  ])('refuses %#', async (body, message) => {
    const m = await t.merchant();
    expectError(await t.request('PUT', '/me/branding', { key: m.key, body }), 400, 'VALIDATION_ERROR', message);
  });

  it('OWNER and DEVELOPER change it; FINANCE and VIEWER read it only', async () => {
    const m = await t.merchant();
    for (const role of ['OWNER', 'DEVELOPER']) {
      const u = await t.user(m.id, role);
      expect((await t.request('PUT', '/me/branding', { key: u.token, body: { displayName: role } })).status).toBe(200);
    }
    for (const role of ['FINANCE', 'VIEWER']) {
      const u = await t.user(m.id, role);
      expectError(await t.request('PUT', '/me/branding', { key: u.token, body: { displayName: role } }), 403, 'FORBIDDEN');
      expect((await t.request('GET', '/me/branding', { key: u.token })).body.data.displayName).toBe('DEVELOPER');
    }
  });
});
