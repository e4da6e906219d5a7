import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createLiveContext, launchBrowser, newPage, screenshotBoth, VIEWPORTS, type LiveContext } from '../support/browser.js';
import { http } from '../dashboard/helpers.js';
import { validTaxId } from '../charges/support.js';
import { sampleLogo } from './logo.js';

/**
 * The public pages as a payer meets them (docs/contract/checkouts.md#payment-page): on a phone the copy button comes
 * before the QR, the whole copy-and-paste code shows in its box, the header and footer keep the edges of the page's
 * column, the confirmation is a receipt (amount, time, end-to-end id), in pt-BR and English, labelled and focusable.
 */
let t: LiveContext;
let browser: Browser;
let m: { id: string; key: string };

beforeAll(async () => {
  [t, browser] = await Promise.all([createLiveContext(), launchBrowser()]);
  m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Padaria Pão Quente' } });
  const branded = await http(t.base, 'PUT', '/me/branding', { key: m.key, body: { displayName: 'Padaria Pão Quente', primaryColor: '#8a3b12', logo: sampleLogo() } });
  expect(branded.status, branded.raw).toBe(200);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function checkout() {
  const customer = (await http(t.base, 'POST', '/customers', { key: m.key, body: { email: 'ana@example.com', name: 'Ana Maria Souza', taxId: validTaxId() } })).body.data;
  const res = await http(t.base, 'POST', '/checkouts', {
    key: m.key,
    body: { items: [{ name: 'Pão de fermentação natural', quantity: 2, unitPrice: 1850 }, { name: 'Café 250 g', quantity: 1, unitPrice: 3490 }], customerId: customer.id },
  });
  expect(res.status, res.raw).toBe(201);
  return res.body.data as Record<string, any>;
}

const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

/** The left edge of the text inside an element (its box plus its left padding). */
const contentLeft = (page: Page, selector: string) => page.locator(selector).first().evaluate((el) => {
  const r = el.getBoundingClientRect();
  return r.left + parseFloat(getComputedStyle(el).paddingLeft);
});

async function expectAligned(page: Page) {
  const main = await contentLeft(page, 'main');
  expect(Math.abs((await contentLeft(page, '.store .column')) - main)).toBeLessThanOrEqual(1);
  expect(Math.abs((await contentLeft(page, 'footer')) - main)).toBeLessThanOrEqual(1);
  // The footer's two parts sit on one line: the same baseline, not one above the other.
  const [note, lang] = [await box(page, 'footer p'), await box(page, 'footer nav')];
  expect(Math.abs(note.y + note.height - (lang.y + lang.height))).toBeLessThanOrEqual(3);
}

describe('the payment page as a payer sees it', () => {
  it('phone: the copy button above the QR, the whole code in its box; desktop: the QR first; header and footer on the column', async () => {
    const k = await checkout();
    for (const viewport of ['phone', 'desktop'] as const) {
      const { context, page } = await newPage(browser, viewport);
      try {
        await page.goto(`${t.base}/pay/${k.id}`);
        const [copy, code, qr] = [await box(page, 'button.copy'), await box(page, '#brcode'), await box(page, 'img.qr')];
        if (viewport === 'phone') {
          expect(copy.y + copy.height).toBeLessThanOrEqual(qr.y);
          expect(code.y + code.height).toBeLessThanOrEqual(qr.y);
        } else {
          expect(qr.x + qr.width).toBeLessThanOrEqual(copy.x); // side by side, the QR on the left
        }
        // All of the code shows: its text is the brCode and nothing of it is cut off or scrolled away.
        expect(await page.locator('#brcode').innerText()).toBe(k.brCode);
        expect(await page.locator('#brcode').evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);
        expect(code.x + code.width).toBeLessThanOrEqual(VIEWPORTS[viewport].width);
        await expectAligned(page);
        expect(await page.locator('.store .logo').getAttribute('src')).toMatch(/^\/pay\/logos\/logo_/);
      } finally {
        await context.close();
      }
    }
    const { context, page } = await newPage(browser, 'phone');
    await page.goto(`${t.base}/pay/${k.id}`);
    await screenshotBoth(page, 'look-pay-pending');
    await context.close();
  }, 60_000);

  it('paid: a receipt with the amount, the time in Brasília and the end-to-end id, in pt-BR and English', async () => {
    const k = await checkout();
    const { context, page } = await newPage(browser, 'phone');
    try {
      await page.goto(`${t.base}/pay/${k.id}`);
      await page.getByRole('button', { name: 'Simular pagamento' }).click();
      await page.locator('.outcome.paid').waitFor();
      const charge = (await http(t.base, 'GET', `/transparents/check?id=${k.chargeId}`, { key: m.key })).body.data;
      expect(charge.end2endId).toMatch(/^E/);
      const paidAt = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' }).format(new Date(charge.paidAt));
      const receipt = await page.locator('.receipt').innerText();
      expect(receipt).toContain('Valor pago');
      expect(receipt).toContain('R$ 71,90');
      expect(receipt).toContain(`Pago em (horário de Brasília)\n${paidAt}`);
      expect(receipt).toContain(charge.end2endId);
      // The outcome comes first: the payer sees it without scrolling past the order.
      expect((await box(page, '.outcome.paid')).y).toBeLessThan((await box(page, '.order')).y);
      await expectAligned(page);
      await screenshotBoth(page, 'look-pay-paid');

      await page.getByRole('link', { name: 'English' }).click();
      await page.waitForURL(/lang=en/);
      const english = await page.locator('.receipt').innerText();
      expect(english).toContain('Amount paid');
      expect(english).toContain('Paid at (Brasília time)');
      expect(english).toContain(charge.end2endId);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('accessible: named controls, a visible focus ring, readable text on the brand colour', async () => {
    const k = await checkout();
    const { context, page } = await newPage(browser, 'phone');
    try {
      await page.goto(`${t.base}/pay/${k.id}`);
      expect(await page.getByRole('textbox', { name: 'Código PIX copia e cola' }).innerText()).toBe(k.brCode);
      expect(await page.getByRole('img', { name: 'QR code do PIX para pagar' }).count()).toBe(1);
      // Keyboard: the copy button is the first control and shows where the focus is.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copiar código PIX');
      expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
      // WCAG AA: the store name on the brand colour.
      const ratio = await page.locator('.store').evaluate((el) => {
        const rgb = (c: string) => c.match(/\d+/g)!.slice(0, 3).map(Number);
        const lum = (c: number[]) => c.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
          .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i]!, 0);
        const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(rgb(getComputedStyle(el).backgroundColor))];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      });
      expect(ratio).toBeGreaterThanOrEqual(4.5);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('the link page as a payer sees it', () => {
  it('its header, fields and footer share the column at both widths', async () => {
    const link = (await http(t.base, 'POST', '/payment-links', {
      key: m.key, body: { name: 'Cesta de café da manhã', description: 'Entrega no sábado de manhã.', amountRange: { min: 500, max: 50_000 }, customerFields: ['name', 'email', 'phone'] },
    })).body.data;
    for (const viewport of ['phone', 'desktop'] as const) {
      const { context, page } = await newPage(browser, viewport);
      try {
        await page.goto(`${t.base}/l/${link.id}`);
        await expectAligned(page);
        for (const label of ['Valor (R$)', 'Nome completo', 'E-mail', 'Telefone (com DDD)']) expect(await page.getByLabel(label).count(), label).toBe(1);
        const legend = await contentLeft(page, 'legend');
        expect(Math.abs(legend - (await contentLeft(page, 'main')))).toBeLessThanOrEqual(1);
        if (viewport === 'phone') await screenshotBoth(page, 'look-link');
      } finally {
        await context.close();
      }
    }
  }, 60_000);
});
