import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createLiveContext, launchBrowser, newPage, screenshotBoth, VIEWPORTS, type LiveContext } from '../support/browser.js';
import { decodeQr, http, poll } from '../dashboard/helpers.js';
import { validTaxId } from '../charges/support.js';
import { sampleLogo } from './logo.js';

let t: LiveContext;
let browser: Browser;
let m: { id: string; key: string };

beforeAll(async () => {
  t = await createLiveContext();
  browser = await launchBrowser();
  m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Padaria Pão Quente' } });
  await http(t.base, 'PUT', '/me/branding', { key: m.key, body: { displayName: 'Padaria Pão Quente', primaryColor: '#8a3b12', logo: sampleLogo() } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function checkout(body: Record<string, unknown> = {}) {
  const customer = (await http(t.base, 'POST', '/customers', { key: m.key, body: { email: 'ana@example.com', name: 'Ana Maria Souza', taxId: validTaxId() } })).body.data;
  const res = await http(t.base, 'POST', '/checkouts', {
    key: m.key,
    body: { items: [{ name: 'Pão de fermentação natural', quantity: 2, unitPrice: 1850 }, { name: 'Café 250 g', quantity: 1, unitPrice: 123_456 }], customerId: customer.id, ...body },
  });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
}

describe.each(Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>)('the payment page at %s width', (viewport) => {
  it('shows the QR (decodes to the brCode), copies the code, turns PAID without a reload and follows the completion link', async () => {
    const k = await checkout({ completionUrl: `${t.base}/health?from=store` });
    const { context, page } = await newPage(browser, viewport);
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.base });
      await page.goto(`${t.base}/pay/${k.id}`);
      await expect(page.getByRole('heading', { name: 'Pagamento' })).toBeTruthy();
      const text = await page.locator('main').innerText();
      expect(text).toContain('Olá, Ana!');
      expect(text).not.toContain('Souza');
      expect(text).toContain('R$ 1.271,56');
      expect(await page.locator('.store-name').innerText()).toBe('Padaria Pão Quente');
      const src = await page.locator('img.qr').getAttribute('src');
      expect(decodeQr(src!.replace(/^data:image\/png;base64,/, ''))).toBe(k.brCode);
      await page.getByRole('button', { name: 'Copiar código' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(k.brCode);
      await expect.poll(() => page.locator('#announce').innerText(), { timeout: 10_000 }).toBe('Código copiado!');
      if (viewport === 'phone') await screenshotBoth(page, 'pay-pending');

      await page.evaluate(() => { (window as any).stillHere = true; });
      await poll(async () => (await page.evaluate(() => document.querySelector('main')?.getAttribute('data-status'))) === 'PENDING');
      const paidAt = Date.now();
      await http(t.base, 'POST', `/admin/simulator/charges/${k.chargeId}/pay`, { key: 'test-admin-token-of-at-least-32-characters' });
      await page.locator('.outcome.paid').waitFor();
      expect(Date.now() - paidAt).toBeLessThan(2000);
      expect(await page.evaluate(() => (window as any).stillHere)).toBe(true);
      // The page empties the live region and fills it 50 ms later (so a screen reader announces a repeated text
      // again): wait for the announcement itself, not for the instant the outcome appears.
      await expect.poll(() => page.locator('#announce').innerText(), { timeout: 10_000 }).toBe('Pagamento confirmado');
      if (viewport === 'phone') await screenshotBoth(page, 'pay-paid');
      await page.waitForURL(/\/health\?from=store&checkoutId=chk_/, { timeout: 15_000 });
      expect(new URL(page.url()).searchParams.get('checkoutId')).toBe(k.id);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('the link page', () => {
  it('keeps what was typed and shows the error beside the field, then lands on the pay page; English by Accept-Language', async () => {
    const link = (await http(t.base, 'POST', '/payment-links', {
      key: m.key, body: { name: 'Doação para a festa junina', amountRange: { min: 500, max: 500_000 }, customerFields: ['name', 'email', 'taxId'] },
    })).body.data;
    for (const viewport of ['phone', 'desktop'] as const) {
      const { context, page } = await newPage(browser, viewport);
      try {
        await page.goto(link.url.replace(/^https?:\/\/[^/]+/, t.base));
        if (viewport === 'phone') await screenshotBoth(page, 'link-form');
        await page.getByLabel('Valor (R$)').fill('1.234,56');
        await page.getByLabel('Nome completo').fill('Bruno Lima');
        await page.getByLabel('E-mail').fill('bruno@example.com');
        await page.getByLabel('CPF ou CNPJ').fill('123.456.789-00');
        await page.getByRole('button', { name: 'Pagar com PIX' }).click();
        await page.locator('#taxId-error').waitFor();
        expect(await page.locator('#taxId-error').innerText()).toBe('CPF inválido: confira os números.');
        expect(await page.getByLabel('CPF ou CNPJ').inputValue()).toBe('123.456.789-00');
        expect(await page.getByLabel('Valor (R$)').inputValue()).toBe('1.234,56');
        expect(await page.getByLabel('Nome completo').inputValue()).toBe('Bruno Lima');
        expect(await page.getByLabel('CPF ou CNPJ').getAttribute('aria-invalid')).toBe('true');
        if (viewport === 'phone') await screenshotBoth(page, 'link-errors');
        const cpf = validTaxId();
        await page.getByLabel('CPF ou CNPJ').fill(`${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`);
        await page.getByRole('button', { name: 'Pagar com PIX' }).click();
        await page.waitForURL(/\/pay\/chk_/);
        expect(await page.locator('.total').innerText()).toBe('R$ 1.234,56');
        expect(await page.locator('.hello').innerText()).toBe('Olá, Bruno!');
      } finally {
        await context.close();
      }
    }
    const english = await browser.newContext({ locale: 'en-US', extraHTTPHeaders: { 'accept-language': 'en-US,en;q=0.9' } });
    const page = await english.newPage();
    await page.goto(`${t.base}/l/${link.id}`);
    expect(await page.getByRole('button', { name: 'Pay with PIX' }).count()).toBe(1);
    await english.close();
  }, 60_000);

  it('an expired checkout from a link has a button that starts a new one', async () => {
    const link = (await http(t.base, 'POST', '/payment-links', { key: m.key, body: { name: 'Bolo de fubá', amount: 3500 } })).body.data;
    const made = await http(t.base, 'POST', `/l/${link.id}/checkouts`, { body: {} });
    expect(made.status).toBe(201);
    const k = made.body.data;
    await t.pool.query("UPDATE charges SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' WHERE checkout_id = $1", [k.id]);
    const { context, page } = await newPage(browser, 'phone');
    try {
      await page.goto(`${t.base}/pay/${k.id}`);
      await page.locator('.outcome.expired').waitFor();
      await screenshotBoth(page, 'pay-expired');
      // The link asks the payer nothing: the button starts the new checkout itself and lands on its page.
      await page.getByRole('button', { name: 'Gerar novo pagamento' }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/pay/') && !url.pathname.endsWith(k.id));
      await page.locator('main[data-status="PENDING"]').waitFor();
      const fresh = new URL(page.url()).pathname.replace('/pay/', '');
      expect((await http(t.base, 'GET', `/checkouts/${fresh}`, { key: m.key })).body.data).toMatchObject({ paymentLinkId: link.id, status: 'PENDING' });
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('without JavaScript', () => {
  it('the page refreshes itself, its check link and the simulate button still work', async () => {
    const k = await checkout();
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: VIEWPORTS.phone, locale: 'pt-BR' });
    const page = await context.newPage();
    try {
      await page.goto(`${t.base}/pay/${k.id}`);
      expect(await page.locator('noscript').first().innerHTML()).toContain('http-equiv="refresh"');
      expect(await page.getByRole('button', { name: 'Copiar código' }).isVisible()).toBe(false); // needs JavaScript: hidden
      await page.getByRole('button', { name: 'Simular pagamento' }).click();
      await page.locator('.outcome.paid').waitFor();
      expect(page.url()).toBe(`${t.base}/pay/${k.id}`);
      await t.assertLedger();
    } finally {
      await context.close();
    }
  }, 60_000);
});
