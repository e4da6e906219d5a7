import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addDays, addMonths, saoPauloDate } from '../../src/calendar/index.js';
import { cycleDueDate } from '../../src/subscriptions/cycle.rules.js';
import { createLiveContext, launchBrowser, newPage, screenshotBoth, type LiveContext } from '../support/browser.js';
import { validTaxId } from '../charges/support.js';
import { PASSWORD, decodeQr, field, http, logIn, merchantWithOwner, poll, shotOnFailure } from './helpers.js';

/**
 * Issue 24's dashboard in Chromium: a merchant creates a QR subscription for a customer, shows its QR, the payer's
 * bank (the simulator) authorizes it and debits a cycle — refused, then paid on the retry — and the merchant reads
 * the attempts and cancels it; a variable cycle charged by hand; what each role is offered
 * (docs/contract/subscriptions.md#subscriptions, docs/contract/access.md#roles).
 */
let t: LiveContext;
let browser: Browser;
let m: Awaited<ReturnType<typeof merchantWithOwner>>;
let payerId: string;
const OWNER = 'carla@academiamovimento.com.br';
const TAX_ID = validTaxId();

const today = () => saoPauloDate(new Date());
const inDays = (n: number) => addDays(today(), n);

async function api(method: string, path: string, body?: unknown) {
  const res = await http(t.base, method, path, { key: m.key, body });
  expect(res.status, res.raw).toBeLessThan(300);
  return res.body.data;
}
async function sim(path: string, body?: unknown) {
  const res = await t.admin('POST', `/admin/simulator${path}`, body);
  expect(res.status, res.raw).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  [t, browser] = await Promise.all([createLiveContext(), launchBrowser()]);
  m = await merchantWithOwner(t, OWNER, { kyc: { status: 'APPROVED', tradeName: 'Academia Movimento' } });
  // Each test logs in on its own (the invitation page is the access tests' subject).
  const token = m.invitePath.split('/').pop()!;
  expect((await http(t.base, 'POST', `/auth/invitations/${token}/accept`, { body: { password: PASSWORD } })).status).toBe(200);
  payerId = (await api('POST', '/customers', { email: 'joana.ribeiro@example.com', name: 'Joana Ribeiro', taxId: TAX_ID })).id;
  await api('POST', '/customers', { email: 'sem-cpf@example.com', name: 'Pedro Sem Documento' });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A menu entry; on a phone the menu folds behind its button (its links stay in the page, off screen). */
const menu = async (page: Page, name: string) => {
  if (page.viewportSize()!.width <= 390) await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
};
/** Both widths from the top of the page (the header is fixed: a page scrolled by typing would draw it mid-page). */
const shoot = async (page: Page, name: string) => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshotBoth(page, name);
};
const dues = (page: Page, testId: string) => page.getByTestId(testId).locator('[data-due]').evaluateAll((els) => els.map((e) => e.getAttribute('data-due')));

describe('subscriptions in the dashboard', () => {
  it('phone (390 px): created for a customer → its QR → authorized → ACTIVE → a cycle refused then paid → attempts → cancelled', async () => {
    const { page } = await newPage(browser, 'phone');
    shotOnFailure(page, 'dash-subscriptions');
    await page.goto(`${t.base}/dashboard/login`);
    await logIn(page, OWNER);
    await page.getByRole('heading', { name: 'Academia Movimento' }).waitFor();
    expect(await page.getByTestId('active-subscriptions').textContent()).toBe('0');

    await menu(page, 'Assinaturas');
    await page.getByRole('heading', { name: 'Assinaturas', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Nova assinatura' }).click();
    await page.getByRole('heading', { name: 'Nova assinatura' }).waitFor();

    // The picker names what a payer needs: a customer without a CPF/CNPJ is offered but cannot be chosen.
    const picker = page.getByRole('combobox', { name: 'Cliente (pagador)' });
    await picker.click();
    await picker.fill('Pedro');
    expect(await page.getByRole('option', { name: /Pedro Sem Documento.*falta nome ou CPF\/CNPJ/ }).getAttribute('aria-disabled')).toBe('true');
    await picker.fill('Joana');
    await page.getByRole('option', { name: `Joana Ribeiro · ${TAX_ID} · joana.ribeiro@example.com` }).click();

    await field(page, 'Valor por ciclo (R$)').fill('29,90');
    await page.getByText('Escolha o primeiro vencimento para ver as datas.').waitFor();
    // Too early a start: the API's refusal shows under its field, and nothing typed is lost.
    const start = inDays(3);
    const end = addMonths(start, 5);
    await field(page, 'Primeiro vencimento').fill(inDays(1));
    await field(page, 'Último dia (opcional)').fill(end);
    await field(page, 'Contrato (o pagador vê; até 35 caracteres)').fill('Plano Academia Mensal');
    await field(page, 'Descrição (opcional; até 35 caracteres)').fill('Musculação e natação');
    await field(page, 'Se o débito falhar').selectOption('THREE_IN_7_DAYS');
    await page.getByRole('button', { name: 'Revisar assinatura' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Criar assinatura' }).click();
    await page.getByText(`startDate: must be at least 2 days after today (${inDays(2)} or later)`).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await field(page, 'Contrato (o pagador vê; até 35 caracteres)').inputValue()).toBe('Plano Academia Mensal');

    // The next due dates, by the API's own rule, before anything is sent.
    await field(page, 'Primeiro vencimento').fill(start);
    expect(await page.getByText(/^startDate: /).count()).toBe(0);
    const expected = [0, 1, 2, 3].map((n) => cycleDueDate(start, 'MONTHLY', n));
    await poll(() => dues(page, 'cycle-preview')).toEqual(expected);
    expect(await page.getByTestId('cycle-preview').locator('..').textContent()).toContain('e mais 2 ciclos até o último dia');
    await shoot(page, 'dash-subscription-new');
    await page.getByRole('button', { name: 'Revisar assinatura' }).click();
    const review = page.getByRole('dialog');
    expect(await dues(page, 'review-dates')).toEqual(expected);
    expect(await review.getByTestId('subscription-review').textContent()).toContain('Joana Ribeiro');
    expect(await review.getByTestId('subscription-review').textContent()).toContain('R$ 29,90');
    await shoot(page, 'dash-subscription-review');
    await review.getByRole('button', { name: 'Criar assinatura' }).click();

    // Its page: waiting for the payer, with the QR the payer scans.
    await page.waitForURL(/\/dashboard\/subscriptions\/sub_/);
    const id = page.url().split('/').pop()!;
    const created = await api('GET', `/subscriptions/${id}`);
    expect(created).toMatchObject({
      status: 'CREATED', journey: 'QR', amount: 2990, frequency: 'MONTHLY', startDate: start, endDate: end, contract: 'Plano Academia Mensal',
      description: 'Musculação e natação', retryPolicy: 'THREE_IN_7_DAYS', customer: { id: payerId },
    });
    await page.getByRole('heading', { name: 'Joana Ribeiro' }).waitFor();
    await page.getByText('Aguardando autorização', { exact: true }).waitFor();
    const qr = (await page.getByTestId('subscription-qr').getAttribute('src'))!;
    expect(decodeQr(qr.replace(/^data:image\/png;base64,/, ''))).toBe(created.brCode);
    expect(await page.getByTestId('subscription-brcode').textContent()).toBe(created.brCode);
    expect(await dues(page, 'subscription-upcoming')).toEqual(expected.slice(0, 3));
    await shoot(page, 'dash-subscription-waiting');

    // The payer authorizes at their bank: the page, which reads it again while it waits, shows it ACTIVE by itself.
    await sim(`/subscriptions/${id}/authorize`);
    await page.getByText('Ativa', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('subscription-qr').count()).toBe(0);

    // A cycle: the first debit is refused, the retry is paid; both attempts are in the detail.
    const charge = await sim(`/subscriptions/${id}/next-cycle`);
    await sim(`/charges/${charge.id}/debit`, { outcome: 'INSUFFICIENT_FUNDS' });
    await page.getByRole('button', { name: 'Atualizar' }).click();
    const row = page.locator(`[data-charge-id="${charge.id}"]`);
    await poll(() => row.getByTestId('cycle-attempts').textContent()).toContain('Saldo insuficiente');
    expect(await row.textContent()).toContain('Pendente');
    await sim(`/charges/${charge.id}/debit`, { outcome: 'PAID' });
    await page.getByRole('button', { name: 'Atualizar' }).click();
    await poll(() => row.getByTestId('cycle-attempts').locator('p').allTextContents()).toEqual(
      (await api('GET', `/transparents/check?id=${charge.id}`)).attempts.map((a: { date: string; outcome: string }) =>
        `${a.date.slice(8, 10)}/${a.date.slice(5, 7)}/${a.date.slice(0, 4)} · ${a.outcome === 'PAID' ? 'Pago' : 'Saldo insuficiente'}`),
    );
    expect(await row.getByTestId('cycle-attempts').locator('p').allTextContents()).toHaveLength(2);
    expect(await row.textContent()).toContain('Paga');
    expect(await row.textContent()).toContain('R$ 29,90');
    await shoot(page, 'dash-subscription-detail');

    // Cancelled from the dashboard, after a confirmation that does not read as its own dismissal.
    await page.getByRole('button', { name: 'Cancelar assinatura' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Manter assinatura' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancelar assinatura' }).click();
    await page.getByText('Cancelada', { exact: true }).waitFor();
    expect(await page.getByTestId('subscription-facts').textContent()).toContain('(por você)');
    expect(await page.getByRole('button', { name: 'Cancelar assinatura' }).count()).toBe(0);
    expect(await api('GET', `/subscriptions/${id}`)).toMatchObject({ status: 'CANCELLED', endedBy: 'MERCHANT' });

    // The list, with a variable one and one waiting for the payer's bank beside it, and its status filter.
    const weekly = await api('POST', '/subscriptions', {
      customerId: payerId, minAmount: 5000, frequency: 'WEEKLY', startDate: inDays(4), contract: 'Personal trainer semanal', journey: 'QR',
    });
    await sim(`/subscriptions/${weekly.id}/authorize`);
    await api('POST', '/subscriptions', {
      customerId: payerId, amount: 11_990, frequency: 'QUARTERLY', startDate: inDays(10), contract: 'Plano trimestral', journey: 'PUSH',
      payerAccount: { ispb: '00000000', branch: '0001', account: '123456' },
    });
    await menu(page, 'Assinaturas');
    await page.locator(`[data-subscription-id="${id}"]`).waitFor();
    expect(await page.locator(`[data-subscription-id="${id}"]`).textContent()).toMatch(/Cancelada.*R\$ 29,90.*Mensal/);
    expect(await page.locator(`[data-subscription-id="${weekly.id}"]`).textContent()).toContain('variável, mín. R$ 50,00');
    expect(await page.getByTestId('subscriptions-table').getByText('Aguardando autorização').count()).toBe(1);
    await shoot(page, 'dash-subscriptions');
    await field(page, 'Situação').selectOption('ACTIVE');
    await poll(() => page.locator('[data-subscription-id]').count()).toBe(1);
    expect(await page.locator(`[data-subscription-id="${weekly.id}"]`).count()).toBe(1);
    await menu(page, 'Visão geral');
    await poll(() => page.getByTestId('active-subscriptions').textContent()).toBe('1');
    await page.context().close();
    await t.assertLedger();
  }, 240_000);

  it('desktop (1280 px): each journey asks for its own fields — the first payment shown and paid with the authorization; a PUSH request with its payer account, refused then corrected', async () => {
    const { page } = await newPage(browser, 'desktop');
    shotOnFailure(page, 'dash-subscriptions-journeys');
    await page.goto(`${t.base}/dashboard/login`);
    await logIn(page, OWNER);
    await page.getByRole('heading', { name: 'Academia Movimento' }).waitFor();
    const fillCommon = async (contract: string) => {
      await page.goto(`${t.base}/dashboard/subscriptions/new`);
      const picker = page.getByRole('combobox', { name: 'Cliente (pagador)' });
      await picker.click();
      await picker.fill(TAX_ID);
      await page.getByRole('option', { name: new RegExp(`^Joana Ribeiro · ${TAX_ID}`) }).click();
      await field(page, 'Valor por ciclo (R$)').fill('89,90');
      await field(page, 'Frequência').selectOption('ANNUAL');
      await field(page, 'Primeiro vencimento').fill(inDays(5));
      await field(page, 'Contrato (o pagador vê; até 35 caracteres)').fill(contract);
    };
    const create = async () => {
      await page.getByRole('button', { name: 'Revisar assinatura' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Criar assinatura' }).click();
    };

    // Journey 3: the first payment, its charge beside the QR; the payer's bank pays it and so authorizes.
    await fillCommon('Anuidade 2027');
    await page.getByText('QR Code com o primeiro pagamento').click();
    await field(page, 'Valor do primeiro pagamento (R$)').fill('150,00');
    await create();
    await page.waitForURL(/\/dashboard\/subscriptions\/sub_/);
    const first = await api('GET', `/subscriptions/${page.url().split('/').pop()}`);
    expect(first).toMatchObject({ journey: 'QR_WITH_PAYMENT', amount: 8990, frequency: 'ANNUAL', firstCharge: { amount: 15000, status: 'PENDING' } });
    await page.getByTestId('subscription-qr').waitFor();
    expect(await page.getByTestId('subscription-first-charge').textContent()).toContain('R$ 150,00');
    expect(await page.getByTestId('subscription-first-charge').getByRole('link', { name: 'Ver cobrança' }).getAttribute('href')).toBe(`/dashboard/charges/${first.firstCharge.id}`);
    await sim(`/subscriptions/${first.id}/authorize`);
    await page.getByRole('button', { name: 'Atualizar' }).click();
    await page.getByText('Ativa', { exact: true }).waitFor();
    await page.getByTestId('subscription-first-charge').getByText('Paga', { exact: true }).waitFor();

    // Journey 1: the payer's account; a malformed ISPB is refused under its own input, then the request goes out.
    await fillCommon('Anuidade via banco');
    await page.getByText('Pedido enviado ao banco do pagador').click();
    expect(await page.getByLabel(/^Valor do primeiro pagamento/).count()).toBe(0);
    await field(page, 'ISPB do banco (8 dígitos)').fill('1234');
    await field(page, 'Agência (até 4 dígitos)').fill('0001');
    await field(page, 'Conta (só números, com o dígito)').fill('1234567');
    await field(page, 'Prazo para o pagador responder, em horas (vazio: 7 dias)').fill('48');
    await create();
    await page.getByText('payerAccount.ispb: has an invalid format').waitFor();
    await field(page, 'ISPB do banco (8 dígitos)').fill('60701190');
    expect(await page.getByText('payerAccount.ispb: has an invalid format').count()).toBe(0);
    await create();
    await page.waitForURL(/\/dashboard\/subscriptions\/sub_/);
    expect(await api('GET', `/subscriptions/${page.url().split('/').pop()}`)).toMatchObject({ journey: 'PUSH', status: 'CREATED', brCode: null });
    await page.getByText('O pedido de autorização foi enviado ao banco do pagador').waitFor();
    expect(await page.getByTestId('subscription-qr').count()).toBe(0);
    await page.context().close();
  }, 240_000);

  it('desktop (1280 px): a variable cycle charged by hand, its bound in reais; each role offered only what it may do', async () => {
    const sub = await api('POST', '/subscriptions', {
      customerId: payerId, minAmount: 5000, frequency: 'WEEKLY', startDate: inDays(3), endDate: inDays(40), contract: 'Aulas avulsas', journey: 'QR',
    });
    await sim(`/subscriptions/${sub.id}/authorize`);
    const { page } = await newPage(browser, 'desktop');
    shotOnFailure(page, 'dash-subscriptions-variable');
    await page.goto(`${t.base}/dashboard/login`);
    await logIn(page, OWNER);
    await page.getByRole('heading', { name: 'Academia Movimento' }).waitFor();
    await page.goto(`${t.base}/dashboard/subscriptions/${sub.id}`);
    const form = page.getByTestId('charge-cycle');
    await form.waitFor();
    const first = cycleDueDate(sub.startDate, 'WEEKLY', 0);
    expect(await field(page, 'Vencimento do ciclo').inputValue()).toBe(first);
    await field(page, 'Valor do ciclo (R$)').fill('40,00');
    await form.getByRole('button', { name: 'Emitir cobrança do ciclo' }).click();
    await form.getByText('amount: must be >= minAmount (5000) (>= R$ 50,00)').waitFor();
    await field(page, 'Valor do ciclo (R$)').fill('75,00');
    await form.getByRole('button', { name: 'Emitir cobrança do ciclo' }).click();
    await form.getByText('Cobrança emitida').waitFor();
    const [charge] = await api('GET', `/subscriptions/${sub.id}/charges`);
    expect(charge).toMatchObject({ amount: 7500, dueDate: first, status: 'PENDING' });
    await poll(() => page.locator(`[data-charge-id="${charge.id}"]`).textContent()).toContain('R$ 75,00');
    // The charged due date is no longer offered.
    await poll(() => field(page, 'Vencimento do ciclo').inputValue()).toBe(cycleDueDate(sub.startDate, 'WEEKLY', 1));
    await shoot(page, 'dash-subscription-variable');
    // In English too (the dictionary's type requires every key).
    await field(page, 'Idioma').selectOption('en');
    await page.getByRole('heading', { name: 'Charge a cycle' }).waitFor();
    expect(await page.getByTestId('subscription-summary').textContent()).toBe('variable, min. R$ 50,00 · Weekly');
    await page.context().close();

    const may = { VIEWER: { operate: false, money: false }, DEVELOPER: { operate: true, money: false }, FINANCE: { operate: true, money: true } };
    for (const [role, can] of Object.entries(may)) {
      const user = await t.user(m.id, role);
      const { context, page: p } = await newPage(browser, 'desktop');
      shotOnFailure(p, `dash-subscriptions-${role}`);
      try {
        await p.goto(`${t.base}/dashboard/login`);
        await logIn(p, user.email, user.password);
        await p.getByRole('heading', { name: 'Academia Movimento' }).waitFor();
        await menu(p, 'Assinaturas');
        await p.locator(`[data-subscription-id="${sub.id}"]`).waitFor();
        expect(await p.getByRole('link', { name: 'Nova assinatura' }).count(), `${role} new`).toBe(can.operate ? 1 : 0);
        await p.goto(`${t.base}/dashboard/subscriptions/${sub.id}`);
        await p.getByTestId('subscription-facts').waitFor();
        await p.locator(`[data-charge-id="${charge.id}"]`).waitFor();
        expect(await p.getByTestId('charge-cycle').count(), `${role} charge a cycle`).toBe(can.operate ? 1 : 0);
        expect(await p.getByRole('button', { name: 'Cancelar assinatura' }).count(), `${role} cancel`).toBe(can.money ? 1 : 0);
      } finally {
        await context.close();
      }
    }
  }, 240_000);
});
