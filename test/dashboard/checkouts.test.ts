import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createLiveContext, launchBrowser, newPage, screenshotBoth, type LiveContext } from '../support/browser.js';
import { sampleLogo } from '../checkouts/logo.js';
import { acceptInvitation, decodeQr, field, http, logIn, merchantWithOwner, poll, shotOnFailure } from './helpers.js';

/**
 * Issue 22's dashboard in Chromium: branding with its preview, a payment link made with a live preview of its page,
 * copied and printed, paid by a payer on its page through the simulator, its counters moving, the checkout and its
 * charge, a refund, deactivation; and what each role is offered (docs/contract/access.md#roles).
 */
let t: LiveContext;
let browser: Browser;
let m: Awaited<ReturnType<typeof merchantWithOwner>>;
const OWNER = 'rita@padariapaoquente.com.br';

beforeAll(async () => {
  [t, browser] = await Promise.all([createLiveContext(), launchBrowser()]);
  m = await merchantWithOwner(t, OWNER, { kyc: { status: 'APPROVED', tradeName: 'Padaria da Rita' } });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
/** A URL the API wrote with PUBLIC_URL, on this test server. */
const here = (url: string) => url.replace(/^https?:\/\/[^/]+/, t.base);
const logoBytes = () => Buffer.from(sampleLogo().split(',')[1]!, 'base64');

describe('checkouts, payment links and branding in the dashboard', () => {
  it('branding → a link made with a live preview → copied, QR printed → paid on its page → counters move → checkout, charge, refund → deactivated', async () => {
    const { context, page } = await newPage(browser, 'desktop');
    shotOnFailure(page, 'dash-checkouts');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.base });
    await acceptInvitation(page, t.base, m.invitePath);
    await page.goto(`${t.base}/dashboard/login`);
    await logIn(page, OWNER);
    await page.getByRole('heading', { name: 'Padaria da Rita' }).waitFor();

    // Branding: the preview is the page drawn by the server from the draft, before anything is saved.
    await nav(page, 'Minha conta');
    const brandPreview = page.frameLocator('[data-testid="branding-preview"]');
    await poll(() => brandPreview.locator('.store-name').textContent()).toBe('Padaria da Rita');
    await field(page, 'Nome exibido (vazio: o nome da loja)').fill('Padaria Pão Quente');
    await field(page, 'Cor principal (#rrggbb; vazio: a cor padrão)').fill('#8a3b12');
    await page.locator('input[type="file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logoBytes() });
    await poll(() => brandPreview.locator('.store-name').textContent()).toBe('Padaria Pão Quente');
    await poll(() => brandPreview.locator('.store .logo').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await poll(() => brandPreview.locator('.store').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(138, 59, 18)');
    expect((await http(t.base, 'GET', '/me/branding', { key: m.key })).body.data.displayName).toBe('Padaria da Rita'); // nothing saved yet
    await page.getByRole('heading', { name: 'Marca nas páginas de pagamento' }).click(); // the colour picker closes
    await screenshotBoth(page, 'dash-branding');
    await page.getByRole('button', { name: 'Salvar marca' }).click();
    await page.getByText('Marca salva').waitFor();
    const branding = (await http(t.base, 'GET', '/me/branding', { key: m.key })).body.data;
    expect(branding).toMatchObject({ displayName: 'Padaria Pão Quente', primaryColor: '#8a3b12' });
    expect(branding.logoUrl).toMatch(/\/pay\/logos\/logo_/);

    // A new link: the preview follows the typing.
    await nav(page, 'Links de pagamento');
    await page.getByRole('link', { name: 'Novo link' }).click();
    const linkPreview = page.frameLocator('[data-testid="link-preview"]');
    await poll(() => linkPreview.locator('h1').textContent()).toBe('Nome do link');
    await field(page, 'Nome (aparece na página)').fill('Curso de pão de fermentação natural');
    await field(page, 'Descrição (opcional)').fill('Sábado, das 9h às 13h, com almoço.');
    await field(page, 'Valor (R$)').fill('45,00');
    await page.getByRole('checkbox', { name: 'Nome', exact: true }).check();
    await page.getByRole('checkbox', { name: 'E-mail', exact: true }).check();
    await field(page, 'Máximo de pagamentos').fill('12');
    await poll(() => linkPreview.locator('h1').textContent()).toBe('Curso de pão de fermentação natural');
    await poll(() => linkPreview.locator('.total').textContent()).toBe('R$ 45,00');
    expect(await linkPreview.getByLabel('Nome completo').count()).toBe(1);
    expect(await linkPreview.locator('.store-name').textContent()).toBe('Padaria Pão Quente');
    expect(await linkPreview.locator('.preview-notice').textContent()).toContain('Prévia');
    // The other kinds of price redraw it too: a range shows the payer's amount field.
    await page.getByText('O pagador digita o valor').click();
    await field(page, 'Mínimo (R$)').fill('10');
    await field(page, 'Máximo (R$)').fill('500');
    await poll(() => linkPreview.locator('#amount-hint').textContent()).toBe('Entre R$ 10,00 e R$ 500,00.');
    await page.getByText('Valor fixo').click();
    await poll(() => linkPreview.locator('.total').textContent()).toBe('R$ 45,00');
    await screenshotBoth(page, 'dash-link-new');
    await page.getByRole('button', { name: 'Criar link' }).click();

    // The link's page in the dashboard: counters, its address to copy, its QR to print.
    await page.getByRole('heading', { name: 'Curso de pão de fermentação natural' }).waitFor();
    const linkId = page.url().split('/').pop()!;
    const link = (await http(t.base, 'GET', `/payment-links/${linkId}`, { key: m.key })).body.data;
    expect(link).toMatchObject({ amount: 4500, customerFields: ['name', 'email'], maxPayments: 12, status: 'ACTIVE' });
    expect(await page.getByTestId('link-payments').textContent()).toBe('0 / 12');
    expect(await page.getByTestId('link-received').textContent()).toBe('R$ 0,00');
    await page.getByRole('button', { name: 'Copiar: Endereço do link' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link.url);
    const qr = (await page.getByTestId('link-qr').getAttribute('src'))!;
    expect(decodeQr(qr.replace(/^data:image\/png;base64,/, ''))).toBe(link.url);
    expect(await page.getByRole('button', { name: 'Imprimir QR code' }).count()).toBe(1);
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByTestId('link-qr').isVisible()).toBe(true);
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Links de pagamento' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Imprimir QR code' }).isVisible()).toBe(false);
    await page.emulateMedia({ media: 'screen' });
    await screenshotBoth(page, 'dash-link-detail');

    // A payer opens the link, sees the store's branding, pays through the simulator.
    const payer = await newPage(browser, 'phone');
    try {
      await payer.page.goto(here(link.url));
      expect(await payer.page.locator('.store-name').textContent()).toBe('Padaria Pão Quente');
      expect(await payer.page.locator('.store .logo').getAttribute('src')).toBe(new URL(branding.logoUrl).pathname);
      expect(await payer.page.locator('.store').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(138, 59, 18)');
      await payer.page.getByLabel('Nome completo').fill('Bruno Lima');
      await payer.page.getByLabel('E-mail').fill('bruno@example.com');
      await payer.page.getByRole('button', { name: 'Pagar com PIX' }).click();
      await payer.page.waitForURL(/\/pay\/chk_/);
      expect(await payer.page.locator('.store-name').textContent()).toBe('Padaria Pão Quente');
      await payer.page.getByRole('button', { name: 'Simular pagamento' }).click();
      await payer.page.locator('.outcome.paid').waitFor();
      expect(await payer.page.locator('.receipt').innerText()).toContain('R$ 45,00');
    } finally {
      await payer.context.close();
    }

    // The counters move.
    await page.getByRole('button', { name: 'Atualizar' }).click();
    await poll(() => page.getByTestId('link-payments').textContent()).toBe('1 / 12');
    expect(await page.getByTestId('link-received').textContent()).toBe('R$ 45,00');
    await page.getByTestId('checkouts-table').getByText('Paga', { exact: true }).waitFor();
    await nav(page, 'Links de pagamento');
    const row = page.locator(`[data-link-id="${linkId}"]`);
    await poll(() => row.getByTestId('link-row-payments').textContent()).toBe('1 / 12');
    expect(await row.getByTestId('link-row-received').textContent()).toBe('R$ 45,00');
    await screenshotBoth(page, 'dash-links');

    // The checkout, the charge it owns, and its refund.
    await nav(page, 'Checkouts');
    const [checkout] = (await http(t.base, 'GET', `/checkouts?paymentLinkId=${linkId}`, { key: m.key })).body.data;
    const checkoutRow = page.locator(`[data-checkout-id="${checkout.id}"]`);
    await poll(() => checkoutRow.textContent()).toContain('R$ 45,00');
    expect(await checkoutRow.textContent()).toContain('Bruno Lima · bruno@example.com');
    expect(await checkoutRow.getByRole('link', { name: 'Abrir página' }).getAttribute('href')).toBe(checkout.url);
    await screenshotBoth(page, 'dash-checkouts');
    await checkoutRow.getByRole('link', { name: 'Detalhes' }).click();
    await page.getByRole('heading', { name: 'R$ 45,00' }).waitFor();
    const charge = (await http(t.base, 'GET', `/transparents/check?id=${checkout.chargeId}`, { key: m.key })).body.data;
    await poll(() => page.getByTestId('checkout-charge').textContent()).toContain(charge.end2endId);
    expect(await page.getByTestId('checkout-items').textContent()).toContain('Curso de pão de fermentação natural');
    await screenshotBoth(page, 'dash-checkout-detail');
    await page.getByRole('button', { name: 'Estornar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Estornar' }).click();
    await poll(() => page.getByTestId('checkout-charge').textContent()).toContain('Estorno');
    expect(await page.getByRole('button', { name: 'Estornar' }).count()).toBe(0);
    expect((await http(t.base, 'GET', `/transparents/check?id=${checkout.chargeId}`, { key: m.key })).body.data.refund).not.toBeNull();

    // Deactivated from the dashboard: its page says so and starts no checkout.
    await page.goto(`${t.base}/dashboard/payment-links/${linkId}`);
    await page.getByRole('button', { name: 'Desativar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Desativar' }).click();
    await page.getByRole('button', { name: 'Reativar' }).waitFor();
    const closed = await http(t.base, 'GET', `/l/${linkId}`);
    expect(closed.raw).toContain('Este link de pagamento está desativado.');
    await context.close();
    await t.assertLedger();
  }, 240_000);

  it('each role is offered only what it may do', async () => {
    const link = (await http(t.base, 'POST', '/payment-links', { key: m.key, body: { name: 'Bolo de fubá', amount: 3500 } })).body.data;
    const made = await http(t.base, 'POST', `/l/${link.id}/checkouts`, { body: {} });
    await t.admin('POST', `/admin/simulator/charges/${(await http(t.base, 'GET', `/checkouts/${made.body.data.id}`, { key: m.key })).body.data.chargeId}/pay`);
    const expectations = { VIEWER: { operate: false, money: false, brand: false }, FINANCE: { operate: true, money: true, brand: false }, DEVELOPER: { operate: true, money: false, brand: true } };
    for (const [role, may] of Object.entries(expectations)) {
      const user = await t.user(m.id, role);
      const { context, page } = await newPage(browser, 'desktop');
      shotOnFailure(page, `dash-checkouts-${role}`);
      try {
        await page.goto(`${t.base}/dashboard/login`);
        await logIn(page, user.email, user.password);
        await page.getByRole('heading', { name: 'Padaria da Rita' }).waitFor();
        await nav(page, 'Links de pagamento');
        await page.locator(`[data-link-id="${link.id}"]`).waitFor();
        expect(await page.getByRole('link', { name: 'Novo link' }).count(), `${role} new link`).toBe(may.operate ? 1 : 0);
        await page.goto(`${t.base}/dashboard/payment-links/${link.id}`);
        await page.getByTestId('link-qr').waitFor();
        expect(await page.getByRole('button', { name: 'Desativar' }).count(), `${role} deactivate`).toBe(may.operate ? 1 : 0);
        await page.goto(`${t.base}/dashboard/checkouts/${made.body.data.id}`);
        await page.getByTestId('checkout-charge').getByText('Paga', { exact: true }).waitFor();
        expect(await page.getByRole('button', { name: 'Estornar' }).count(), `${role} refund`).toBe(may.money ? 1 : 0);
        await page.goto(`${t.base}/dashboard/account`);
        await page.getByText('Marca nas páginas de pagamento').waitFor();
        expect(await page.getByRole('button', { name: 'Salvar marca' }).count(), `${role} branding`).toBe(may.brand ? 1 : 0);
        if (!may.brand) await page.getByText('Só Donos e Desenvolvedores mudam a marca.').waitFor();
      } finally {
        await context.close();
      }
    }
  }, 240_000);
});
