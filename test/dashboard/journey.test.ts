import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createLiveContext, launchBrowser, newPage, screenshotBoth, type LiveContext } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { acceptInvitation, decodeQr, field, http, logIn, merchantWithOwner, sessionCookie, poll, shotOnFailure } from './helpers.js';

let t: LiveContext;
let browser: Browser;
let receiver: Server;
const received: string[] = [];

beforeAll(async () => {
  [t, browser] = await Promise.all([createLiveContext({ SIM_PAYOUT_DELAY_MS: '200' }), launchBrowser()]);
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { received.push(body); res.writeHead(200).end('ok'); });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  receiver?.close();
  await t?.close();
});

const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

describe('a merchant\'s whole journey in a real browser', () => {
  it('invitation → login → API key → charge over HTTP → list → QR → simulate → balance → refund → withdrawal → webhook delivery → logout', async () => {
    const email = 'maria@lojadamaria.com.br';
    const m = await merchantWithOwner(t, email, { withdrawalFeeFixed: 150, kyc: { status: 'APPROVED', tradeName: 'Loja da Maria' } });
    const { context, page } = await newPage(browser, 'desktop');
    shotOnFailure(page, 'journey');

    await acceptInvitation(page, t.base, m.invitePath, undefined, (p) => screenshotBoth(p, 'invite'));
    await page.getByRole('link', { name: 'Ir para o login' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    await screenshotBoth(page, 'login');
    await logIn(page, email);
    await page.getByRole('heading', { name: 'Loja da Maria' }).waitFor();
    const cookie = await sessionCookie(page);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('eyJ'); // no JWT in storage

    // A self-service API key, shown once, works over HTTP.
    await nav(page, 'Chaves de API');
    await field(page, 'Nome da chave').fill('Loja virtual');
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const key = (await page.getByTestId('api-key-secret').textContent())!.trim();
    expect(key).toMatch(/^pxg_/);
    await screenshotBoth(page, 'api-keys');
    const created = await http(t.base, 'POST', '/transparents/create', { key, body: { method: 'PIX', amount: 123456, description: 'Pedido 1001' } });
    expect(created.status, created.raw).toBe(201);
    const charge = created.body.data;

    await nav(page, 'Cobranças');
    const row = page.locator(`[data-charge-id="${charge.id}"]`);
    await poll(() => row.textContent()).toContain('R$ 1.234,56');
    expect(await row.textContent()).toContain('Pendente');
    await screenshotBoth(page, 'charges');
    await row.getByRole('link', { name: 'Abrir' }).click();

    // The QR image on the page decodes to the charge's copy-paste code.
    const src = (await page.getByTestId('charge-qr').getAttribute('src'))!;
    expect(decodeQr(src.replace(/^data:image\/png;base64,/, ''))).toBe(charge.brCode);
    expect((await page.getByTestId('charge-brcode').textContent())!.trim()).toBe(charge.brCode);
    await screenshotBoth(page, 'charge-detail');

    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Simular pagamento' }).click();
    await page.getByText('Paga', { exact: true }).first().waitFor();
    await poll(() => page.getByTestId('charge-history').textContent()).toContain('Paga');

    await nav(page, 'Visão geral');
    await poll(() => page.getByTestId('balance-available').textContent()).toBe('R$ 1.234,56');
    await poll(() => page.getByTestId('received-total').textContent()).toBe('R$ 1.234,56');
    await screenshotBoth(page, 'overview');

    // A second sale paid, then the first refunded from the dashboard.
    const second = await http(t.base, 'POST', '/transparents/create', { key, body: { method: 'PIX', amount: 50000 } });
    expect((await t.admin('POST', `/admin/simulator/charges/${second.body.data.id}/pay`)).status).toBe(200);
    await page.goto(`${t.base}/dashboard/charges/${charge.id}`);
    await page.getByRole('button', { name: 'Estornar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Estornar' }).click();
    await page.getByText('Estornada', { exact: true }).first().waitFor();
    expect((await http(t.base, 'GET', `/transparents/check?id=${charge.id}`, { key })).body.data.status).toBe('REFUNDED');

    // No withdrawal yet: the fee comes from GET /me/contract, shown on the page and in the review before confirming.
    expect((await http(t.base, 'GET', '/withdrawals', { key })).body.data).toEqual([]);
    const available = (await http(t.base, 'GET', '/me/balance', { key })).body.data.available;
    expect(available).toBe(50000);
    await nav(page, 'Saques');
    await poll(() => page.getByTestId('withdrawal-contract-fee').textContent()).toBe('Tarifa de saque: R$ 1,50');
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await field(page, 'Valor a receber (R$)').fill('100,00');
    await field(page, 'Tipo da chave').selectOption('EMAIL');
    await field(page, 'Chave PIX de destino').fill('maria@example.com');
    await page.getByRole('button', { name: 'Revisar saque' }).click();
    await poll(() => page.getByTestId('withdrawal-fee').textContent()).toBe('R$ 1,50');
    expect(await page.getByTestId('withdrawal-after').textContent()).toBe('R$ 398,50');
    await screenshotBoth(page, 'withdrawal-review');
    await page.getByRole('button', { name: 'Confirmar saque' }).click();
    await page.getByTestId('withdrawals-table').getByText('R$ 100,00').waitFor();
    await screenshotBoth(page, 'withdrawals');

    // A webhook endpoint: the secret shown once, then a delivery in its history.
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pix`;
    await nav(page, 'Webhooks');
    await page.getByRole('button', { name: 'Novo endpoint' }).click();
    await field(page, 'URL (HTTPS)').fill(hook);
    await page.getByRole('button', { name: 'Criar endpoint' }).click();
    expect((await page.getByTestId('webhook-secret').textContent())!.trim()).toMatch(/^whsec_/);
    await screenshotBoth(page, 'webhook-created');
    await page.getByRole('dialog').getByRole('button', { name: 'Fechar' }).click();
    await page.getByTestId('webhooks-table').getByText(hook).waitFor();
    await screenshotBoth(page, 'webhooks');
    const third = await http(t.base, 'POST', '/transparents/create', { key, body: { method: 'PIX', amount: 700 } });
    await t.admin('POST', `/admin/simulator/charges/${third.body.data.id}/pay`);
    await eventually(() => expect(received.some((b) => b.includes(third.body.data.id))).toBe(true));
    await page.getByRole('link', { name: 'Entregas' }).click();
    await poll(async () => {
      await page.getByRole('button', { name: 'Atualizar' }).click();
      return page.getByTestId('deliveries-table').textContent().catch(() => '');
    }).toContain('CHARGE_PAID');
    await screenshotBoth(page, 'webhook-deliveries');
    // The webhook operations (docs/contract/webhooks.md#webhook-operations) from the page: a test delivery now, a rotated secret shown once.
    await page.getByRole('button', { name: 'Enviar teste' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Enviar teste' }).click();
    await page.getByRole('status').getByText('Enviar teste: OK (200)').waitFor();
    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Trocar segredo' }).click();
    expect((await page.getByTestId('rotated-secret').textContent())!.trim()).toMatch(/^whsec_/);
    await screenshotBoth(page, 'webhook-operations');

    // The statement lists the money movements; its CSV export downloads with the session.
    await nav(page, 'Extrato');
    await page.getByTestId('statement-table').getByText('R$ 1.234,56').first().waitFor();
    await screenshotBoth(page, 'statement-lines');
    const csv = await page.request.get(`${t.base}${await page.getByRole('link', { name: 'Baixar CSV' }).getAttribute('href')}`);
    expect(csv.status()).toBe(200);
    expect((await csv.text()).split(/\r?\n/)[0]).toBe('createdAt,account,type,amount,balanceAfter,fee,chargeId,refundId,withdrawalId,disputeId,end2endId,description');

    // The key is revoked from the page: refused at once.
    await nav(page, 'Chaves de API');
    const keyRow = page.getByRole('row', { name: /^Loja virtual/ });
    await keyRow.getByRole('button', { name: 'Revogar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revogar' }).click();
    await keyRow.getByText('Revogada em').waitFor();
    expect((await http(t.base, 'GET', '/me/balance', { key })).status).toBe(401);

    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    expect((await http(t.base, 'GET', '/me/store', { cookie })).status).toBe(401);
    await context.close();
    await t.assertLedger();
  }, 240_000);
});
