import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addDays, isBusinessDay, weekday, type CivilDate } from '../../src/calendar/index.js';
import { createLiveContext, launchBrowser, newPage, screenshot, type LiveContext } from '../support/browser.js';
import { validTaxId } from '../charges/support.js';
import { today } from '../charges/due-date-support.js';
import { acceptInvitation, field, http, logIn, merchantWithOwner, poll, shotOnFailure } from './helpers.js';

/**
 * Issue 23's dashboard in Chromium at 390 and 1280 px (docs/contract/due-date-charges.md#due-date-charges): a
 * due-date charge made in the form with its four rules, the amounts of the sample days before it is created, the
 * API's field error beside the customer, the charge page's amount due today, a simulated payment on a chosen day
 * and what was paid. Every amount is worked out by hand below.
 */
let t: LiveContext;
let browser: Browser;
let m: Awaited<ReturnType<typeof merchantWithOwner>>;
let payerId: string;
const OWNER = 'joana@escolinhaaprender.com.br';

/**
 * The due date S: a Saturday at least 7 days ahead, so E = Monday S + 2; Tuesday S + 3 is a business day (the
 * first day late), and so is L = E + 30 = S + 32 (a Wednesday), so no rule moves the last day to pay.
 */
function dueSaturday(): CivilDate {
  let d = addDays(today(), 7);
  while (weekday(d) !== 6 || ![2, 3, 32].every((n) => isBusinessDay(addDays(d, n)))) d = addDays(d, 1);
  return d;
}
const S = dueSaturday();
const E = addDays(S, 2);
const L = addDays(S, 32);
/** `19/12/2026`, as the dashboard writes a day (after a weekday that Intl words). */
const br = (d: CivilDate) => `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)}`;

beforeAll(async () => {
  [t, browser] = await Promise.all([createLiveContext(), launchBrowser()]);
  m = await merchantWithOwner(t, OWNER, { kyc: { status: 'APPROVED', tradeName: 'Escolinha Aprender' } });
  const made = await http(t.base, 'POST', '/customers', { key: m.key, body: { email: 'pedro.alves@example.com', name: 'Pedro Alves', taxId: validTaxId() } });
  expect(made.status, made.raw).toBe(201);
  payerId = made.body.data.id;
  const bare = await http(t.base, 'POST', '/customers', { key: m.key, body: { email: 'sem.cpf@example.com', name: 'Sem CPF' } });
  expect(bare.status, bare.raw).toBe(201);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The sample rows as [date, amount]. */
const sampleRows = (page: Page) => page.locator('[data-sample-date]').evaluateAll((rows) =>
  rows.map((r) => [r.getAttribute('data-sample-date'), r.querySelector('[data-testid="sample-amount"]')?.textContent]));

describe('due-date charges in the dashboard', () => {
  it.each(['phone', 'desktop'] as const)('at %s width: the form with rules → the amounts of the sample days → the charge, its amount due today → paid on a chosen day', async (viewport) => {
    const { context, page } = await newPage(browser, viewport);
    shotOnFailure(page, `dash-due-${viewport}`);
    if (viewport === 'phone') await acceptInvitation(page, t.base, m.invitePath);
    await page.goto(`${t.base}/dashboard/login`);
    await logIn(page, OWNER);
    await page.getByRole('heading', { name: 'Escolinha Aprender' }).waitFor();
    await page.goto(`${t.base}/dashboard/charges/new`);
    await page.getByRole('heading', { name: 'Nova cobrança' }).waitFor();

    await page.getByText('Com vencimento', { exact: true }).click();
    await page.getByTestId('due-needs').getByText('nome e CPF/CNPJ').waitFor();
    // A customer without a CPF/CNPJ cannot be a cobv's payer: offered, but not selectable.
    const customer = page.getByRole('combobox', { name: 'Cliente (pagador)' });
    await customer.click();
    await customer.fill('Sem CPF');
    expect(await page.getByRole('option', { name: 'Sem CPF · sem.cpf@example.com — falta nome ou CPF/CNPJ' }).getAttribute('aria-disabled')).toBe('true');
    await customer.press('Escape');
    await customer.fill('');
    expect(await page.getByTestId('due-preview').textContent()).toContain('Informe o valor e o vencimento');

    await field(page, 'Valor (R$)').fill('1.000,00');
    await field(page, 'Descrição (opcional)').fill('Mensalidade de dezembro');
    await field(page, 'Vencimento').fill(S);
    expect(await field(page, 'Prazo após o vencimento (dias)').inputValue()).toBe('30');
    await field(page, 'Desconto para pagar antes').selectOption('FIXED_UNTIL');
    await field(page, 'Faixa 1: Pago até o dia').fill(addDays(S, -3));
    await field(page, 'Faixa 1: Valor (R$)').fill('50,00');
    await page.getByRole('button', { name: 'Adicionar faixa de desconto' }).click();
    await field(page, 'Faixa 2: Pago até o dia').fill(S);
    await field(page, 'Faixa 2: Valor (R$)').fill('20');
    await field(page, 'Multa por atraso').selectOption('PERCENT');
    await field(page, 'Multa por atraso: Percentual (%)').fill('2,00 %');
    await field(page, 'Juros por atraso').selectOption('PERCENT_PER_MONTH');
    await field(page, 'Juros por atraso: Percentual (%)').fill('1');
    await field(page, 'Abatimento (em qualquer dia)').selectOption('FIXED');
    // The API's creation check runs on the draft: a rebate of the whole amount is refused before anything is sent.
    await field(page, 'Abatimento (em qualquer dia): Valor (R$)').fill('1.000,00');
    await poll(() => page.getByTestId('due-preview-problem').textContent()).toContain('rebate: reaches the amount');
    await field(page, 'Abatimento (em qualquer dia): Valor (R$)').fill('10,00');

    // V = 100000; rebate 1000 every day; discount 5000 until S − 3, 2000 until S (which counts as E = S + 2);
    // fine 2 % = 2000 and interest 1 % a month = ⌊100000 × 100 × n / 300000⌋ from E on.
    await poll(() => sampleRows(page)).toEqual([
      [today(), 'R$ 940,00'], // 100000 − 1000 − 5000
      [addDays(S, -3), 'R$ 940,00'], // the last day of the R$ 50,00 tier
      [S, 'R$ 970,00'], // 100000 − 1000 − 2000: the due date, a Saturday
      [E, 'R$ 970,00'], // the effective due date: the tier dated S lasts until it
      [addDays(E, 1), 'R$ 1.010,33'], // 100000 − 1000 + 2000 + ⌊33.33⌋
      [L, 'R$ 1.020,00'], // 30 days late: + 2000 + 1000
    ]);
    const rows = page.locator('[data-sample-date]');
    expect(await rows.nth(0).textContent()).toContain('hoje');
    expect(await rows.nth(1).textContent()).toContain('último dia do desconto de R$ 50,00');
    expect(await rows.nth(3).textContent()).toContain('vencimento efetivo');
    expect(await rows.nth(3).textContent()).toContain('último dia do desconto de R$ 20,00');
    expect(await rows.nth(4).getByTestId('sample-breakdown').textContent()).toBe('R$ 1.000,00 − R$ 10,00 abatimento + R$ 20,00 multa + R$ 0,33 juros');
    expect(await rows.nth(5).textContent()).toContain('último dia para pagar');
    const moved = await page.getByTestId('due-moved').textContent();
    expect(moved).toContain(`${br(S)} não é dia útil: o vencimento passa para`);
    expect(moved).toContain(br(E));

    // A tier after the due date: the draft's check says so, and the API's answer sits beside that tier's date.
    const tier2 = field(page, 'Faixa 2: Pago até o dia');
    await tier2.fill(addDays(S, 1));
    await poll(() => page.getByTestId('due-preview-problem').textContent()).toContain('discount.tiers[1].date: must be on or before dueDate');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await poll(() => tier2.getAttribute('aria-invalid')).toBe('true');
    expect(await tier2.getAttribute('aria-describedby')).toMatch(/-error/);
    await tier2.fill(S);
    await poll(() => sampleRows(page)).toHaveLength(6);

    // No customer picked: the API's error sits beside the customer, and nothing typed is lost.
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await poll(() => customer.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await customer.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toBe('Escolha o cliente que vai pagar (customerId: required with dueDate (the payer BACEN requires))');
    expect(await field(page, 'Multa por atraso: Percentual (%)').inputValue()).toBe('2,00 %');
    await customer.click();
    await customer.fill('Pedro');
    await page.getByRole('option', { name: /^Pedro Alves · \d{11} · pedro.alves@example.com$/ }).click();
    await poll(() => customer.getAttribute('aria-invalid')).not.toBe('true');
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'dash-due-new');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();

    // The charge as the API stored it, and its page.
    await page.getByRole('heading', { name: 'R$ 1.000,00' }).waitFor();
    const id = page.url().split('/').pop()!;
    const stored = (await http(t.base, 'GET', `/transparents/check?id=${id}`, { key: m.key })).body.data;
    expect(stored).toMatchObject({
      amount: 100_000, dueDate: S, daysAfterDue: 30, customer: { id: payerId },
      discount: { mode: 'FIXED_UNTIL', tiers: [{ date: addDays(S, -3), value: 5000 }, { date: S, value: 2000 }] },
      fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 }, rebate: { mode: 'FIXED', value: 1000 },
      amountDue: 94_000,
    });
    const panel = page.getByTestId('charge-due');
    expect(await panel.textContent()).toContain(br(S));
    expect(await panel.textContent()).toContain(br(L));
    const rules = await page.getByTestId('due-rules').locator('li').allTextContents();
    expect(rules).toEqual([
      expect.stringMatching(new RegExp(`^Desconto de R\\$ 50,00 se pago até .*${br(addDays(S, -3))}$`)),
      expect.stringMatching(new RegExp(`^Desconto de R\\$ 20,00 se pago até .*${br(E)}$`)),
      'Multa de 2,00 % do valor se pago depois do vencimento',
      'Juros de 1,00 % ao mês, por dia corrido de atraso',
      'Abatimento de R$ 10,00 em qualquer dia',
    ]);
    expect(await page.getByTestId('amount-due-today-total').textContent()).toBe('R$ 940,00');
    expect(await page.getByTestId('charge-due-summary').textContent()).toMatch(new RegExp(`^Valor a pagar hoje: R\\$ 940,00 · Vencimento: .*${br(S)}$`));
    expect(await page.getByTestId('amount-due-today').textContent()).toContain('− R$ 50,00');
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'dash-due-charge');

    // The charges list shows the due date.
    await page.goto(`${t.base}/dashboard/charges`);
    await poll(() => page.locator(`[data-charge-id="${id}"]`).first().textContent()).toContain(br(S));
    await page.goto(`${t.base}/dashboard/charges/${id}`);

    // The simulator's payer pays on the first day late: the dialog shows that day's amount, the page what was paid.
    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Dia do pagamento (simulado)').fill(addDays(E, 1));
    await poll(() => dialog.getByTestId('pay-day-amount').textContent()).toBe('O pagador paga R$ 1.010,33 neste dia.');
    await dialog.getByLabel('Dia do pagamento (simulado)').fill(addDays(L, 1));
    await poll(() => dialog.getByTestId('pay-day-amount').textContent()).toBe('Fora do prazo: não pode ser paga neste dia.');
    await dialog.getByLabel('Dia do pagamento (simulado)').fill(addDays(E, 1));
    await dialog.getByRole('button', { name: 'Simular pagamento' }).click();
    await poll(() => page.getByTestId('amount-paid-total').textContent()).toBe('R$ 1.010,33');
    const paid = await page.getByTestId('amount-paid').textContent();
    for (const part of ['− R$ 10,00', '+ R$ 20,00', '+ R$ 0,33']) expect(paid).toContain(part);
    expect(await page.getByTestId('amount-due-today').count()).toBe(0);
    expect(await page.getByTestId('charge-due-summary').textContent()).toMatch(/^Valor pago: R\$ 1\.010,33 · Vencimento: /);
    const after = (await http(t.base, 'GET', `/transparents/check?id=${id}`, { key: m.key })).body.data;
    expect(after).toMatchObject({ status: 'PAID', paidAmount: 101_033, paidBreakdown: { original: 100_000, rebate: 1000, discount: 0, fine: 2000, interest: 33 }, amountDue: null });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'dash-due-paid');
    if (viewport === 'desktop') {
      // In English too; money stays in reais.
      await page.getByLabel('Idioma').selectOption('en');
      await poll(() => page.getByTestId('charge-due-summary').textContent()).toMatch(/^Amount paid: R\$ 1\.010,33 · Due date: /);
      expect(await page.getByTestId('due-rules').locator('li').allTextContents()).toContain('A fine of 2,00 % of the amount if paid after the due date');
    }
    await context.close();
    await t.assertLedger();
  }, 240_000);
});
