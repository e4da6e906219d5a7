import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLiveContext, launchBrowser, newPage, screenshotBoth, type LiveContext } from '../support/browser.js';
import { acceptInvitation, field, http, logIn, merchantWithOwner, PASSWORD, sessionCookie, poll, shotOnFailure } from './helpers.js';

let t: LiveContext;
let browser: Browser;
let owner: { context: BrowserContext; page: Page };
let m: Awaited<ReturnType<typeof merchantWithOwner>>;
const OWNER = 'joao@padariadojoao.com.br';
const NEW_PASSWORD = 'pao-de-queijo-quentinho-7';

beforeAll(async () => {
  [t, browser] = await Promise.all([createLiveContext(), launchBrowser()]);
  m = await merchantWithOwner(t, OWNER, { kyc: { status: 'APPROVED', tradeName: 'Padaria do João' } });
  owner = await newPage(browser, 'desktop');
  await acceptInvitation(owner.page, t.base, m.invitePath);
  await owner.page.goto(`${t.base}/dashboard/login`);
  await logIn(owner.page, OWNER);
  await owner.page.getByRole('heading', { name: 'Padaria do João' }).waitFor();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
const noButton = async (page: Page, name: string) => expect(await page.getByRole('button', { name }).count(), name).toBe(0);

describe('roles, sessions and forms in a real browser', () => {
  it('a failed submit keeps what was typed and shows the API error next to its field', async () => {
    const { page } = owner;
    shotOnFailure(page, 'failed-submit');
    await nav(page, 'Nova cobrança');
    await field(page, 'Valor (R$)').fill('0,50');
    await field(page, 'Descrição (opcional)').fill('Bolo de fubá');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    const amount = field(page, 'Valor (R$)');
    await poll(() => amount.getAttribute('aria-invalid')).toBe('true');
    // Mantine links the error to its input: the message is the input's description.
    const errorId = (await amount.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/^amount: /);
    expect(await amount.inputValue()).toBe('0,50');
    expect(await field(page, 'Descrição (opcional)').inputValue()).toBe('Bolo de fubá');
    await screenshotBoth(page, 'new-charge-error');
    await amount.fill('12,50');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await page.getByRole('heading', { name: 'R$ 12,50' }).waitFor();
  }, 240_000);

  it('customers: create one from the page; events and statement list what happened', async () => {
    const { page } = owner;
    shotOnFailure(page, 'customers');
    await nav(page, 'Clientes');
    await page.getByRole('button', { name: 'Novo cliente' }).click();
    await field(page, 'E-mail').fill('ana@example.com');
    await field(page, 'Nome (opcional)').fill('Ana Lima');
    await page.getByRole('button', { name: 'Cadastrar cliente' }).click();
    await page.getByTestId('customers-table').getByText('ana@example.com').first().waitFor();
    await screenshotBoth(page, 'customers');
    await nav(page, 'Eventos');
    await page.getByRole('button', { name: /CHARGE_CREATED/ }).first().waitFor();
    await screenshotBoth(page, 'events');
    await nav(page, 'Extrato');
    await page.getByRole('link', { name: 'Baixar CSV' }).waitFor();
    await screenshotBoth(page, 'statement');
  }, 240_000);

  it('team: an invited VIEWER sees no action button and the API refuses them anyway; a role change ends the session, login returns to the page', async () => {
    const { page } = owner;
    shotOnFailure(page, 'team-owner');
    await nav(page, 'Equipe');
    await page.getByRole('button', { name: 'Convidar pessoa' }).click();
    await field(page, 'E-mail').fill('vitor@padariadojoao.com.br');
    await field(page, 'Nome').fill('Vitor Leitura');
    await field(page, 'Papel').selectOption('VIEWER');
    await page.getByRole('button', { name: 'Gerar convite' }).click();
    const url = (await page.getByTestId('invitation-url').textContent())!.trim();
    expect(url).toMatch(/\/dashboard\/invite\/[\w-]+$/);
    await screenshotBoth(page, 'team-invite-link');
    await page.getByRole('dialog').getByRole('button', { name: 'Fechar' }).click();
    await screenshotBoth(page, 'team');

    const viewer = await newPage(browser, 'phone');
    shotOnFailure(viewer.page, 'viewer');
    await acceptInvitation(viewer.page, t.base, new URL(url).pathname);
    await viewer.page.goto(`${t.base}/dashboard/login`);
    await logIn(viewer.page, 'vitor@padariadojoao.com.br');
    await viewer.page.getByRole('heading', { name: 'Padaria do João' }).waitFor();
    const v = viewer.page;
    const charge = await http(t.base, 'POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 990 } });
    await t.admin('POST', `/admin/simulator/charges/${charge.body.data.id}/pay`);
    for (const [path, heading, hidden] of [
      ['/charges', 'Cobranças', 'Nova cobrança'], [`/charges/${charge.body.data.id}`, 'R$ 9,90', 'Estornar'], ['/customers', 'Clientes', 'Novo cliente'],
      ['/withdrawals', 'Saques', 'Solicitar saque'], ['/webhooks', 'Webhooks', 'Novo endpoint'], ['/team', 'Equipe', 'Convidar pessoa'],
    ] as const) {
      await v.goto(`${t.base}/dashboard${path}`);
      await v.getByRole('heading', { name: heading, exact: true }).waitFor();
      await v.waitForLoadState('networkidle');
      expect(v.url()).toBe(`${t.base}/dashboard${path}`);
      await noButton(v, hidden);
    }
    await noButton(v, 'Remover');
    await screenshotBoth(v, 'viewer-team');
    await v.goto(`${t.base}/dashboard/charges/${charge.body.data.id}`);
    await v.getByTestId('charge-qr').waitFor();
    await noButton(v, 'Estornar');
    await noButton(v, 'Simular pagamento');
    await screenshotBoth(v, 'viewer-charge-detail');
    await v.getByRole('button', { name: 'Menu' }).click();
    const links = await v.getByRole('navigation').getByRole('link').allTextContents();
    expect(links).not.toContain('Nova cobrança');
    expect(links).not.toContain('Chaves de API');
    await screenshotBoth(v, 'viewer-menu');

    const cookie = await sessionCookie(v);
    for (const [method, path, body] of [
      ['POST', '/transparents/create', { method: 'PIX', amount: 1000 }],
      ['POST', `/transparents/refund?id=${charge.body.data.id}`, undefined],
      ['POST', '/withdrawals', { amount: 100, pixKey: 'vitor@example.com', pixKeyType: 'EMAIL' }],
      ['POST', '/webhooks', { url: 'https://example.com/hook', events: ['CHARGE_PAID'] }],
      ['POST', '/me/users', { email: 'x@example.com', name: 'X', role: 'OWNER' }],
      ['POST', '/me/api-keys', { name: 'x' }],
    ] as const) {
      const res = await http(t.base, method, path, { cookie, body, dashboard: true });
      expect(res.status, `${path}: ${res.raw}`).toBe(403);
      expect(res.body.error).toBe('FORBIDDEN');
    }
    // Without the dashboard header a cookie request other than GET is refused (CSRF guard).
    expect((await http(t.base, 'POST', '/customers', { cookie, body: { email: 'y@example.com' } })).status).toBe(403);

    // The owner makes them FINANCE: that ends their session; the next page asks for login and comes back.
    await v.goto(`${t.base}/dashboard/withdrawals?from=menu`);
    await v.getByRole('heading', { name: 'Saques' }).waitFor();
    await page.reload();
    await page.getByLabel('Alterar papel: vitor@padariadojoao.com.br').selectOption('FINANCE');
    await poll(async () => (await http(t.base, 'GET', '/me/store', { cookie })).status).toBe(401);
    await v.getByRole('button', { name: 'Menu' }).click();
    await nav(v, 'Clientes');
    await v.waitForURL(/\/dashboard\/login\?expired=1&next=%2Fcustomers/);
    await v.getByText('Sua sessão terminou').waitFor();
    await screenshotBoth(v, 'login-expired');
    await logIn(v, 'vitor@padariadojoao.com.br');
    await v.waitForURL(/\/dashboard\/customers$/);
    await v.getByRole('heading', { name: 'Clientes' }).waitFor();
    await v.goto(`${t.base}/dashboard/withdrawals`);
    await v.getByRole('button', { name: 'Solicitar saque' }).waitFor();
    const financeCookie = await sessionCookie(v);

    // Removed from the team: their session ends at once.
    await page.reload();
    await page.getByRole('button', { name: 'Remover' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remover' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByTestId('team-table').getByText('vitor@padariadojoao.com.br').waitFor({ state: 'detached' });
    expect((await http(t.base, 'GET', '/me/store', { cookie: financeCookie })).status).toBe(401);
    await viewer.context.close();
  }, 240_000);

  it('API keys: the owner picks a key role; the list shows each key\'s role and who made it; a DEVELOPER is offered DEVELOPER and VIEWER only', async () => {
    const { page } = owner;
    shotOnFailure(page, 'api-key-roles');
    await nav(page, 'Chaves de API');
    const role = field(page, 'Papel da chave');
    expect(await role.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['FULL', 'FINANCE', 'DEVELOPER', 'VIEWER']);
    expect(await role.inputValue()).toBe('FULL');
    await field(page, 'Nome da chave').fill('Painel de leitura');
    await role.selectOption('VIEWER');
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const key = (await page.getByTestId('api-key-secret').textContent())!.trim();
    expect((await http(t.base, 'GET', '/me/balance', { key })).status).toBe(200);
    const refused = await http(t.base, 'POST', '/transparents/create', { key, body: { method: 'PIX', amount: 1000 } });
    expect(refused.status, refused.raw).toBe(403);
    const table = page.getByTestId('api-keys-table');
    const made = table.locator('tr', { hasText: 'Painel de leitura' });
    await poll(() => made.textContent()).toContain('Leitura');
    expect(await made.textContent()).toContain('Maria Souza');
    // The operator's key (the merchant's first) is FULL and made by no user.
    expect(await table.locator('tr', { hasText: 'default' }).textContent()).toMatch(/Completa.*Operador da plataforma/);
    await screenshotBoth(page, 'api-keys-roles');

    const invited = await t.admin('POST', `/admin/merchants/${m.id}/users`, { email: 'dora@padariadojoao.com.br', name: 'Dora Dev', role: 'DEVELOPER' });
    const dev = await newPage(browser, 'desktop');
    shotOnFailure(dev.page, 'api-key-roles-dev');
    await acceptInvitation(dev.page, t.base, new URL(invited.body.data.invitation.url).pathname);
    await dev.page.goto(`${t.base}/dashboard/login`);
    await logIn(dev.page, 'dora@padariadojoao.com.br');
    await dev.page.getByRole('heading', { name: 'Padaria do João' }).waitFor();
    await nav(dev.page, 'Chaves de API');
    const devRole = field(dev.page, 'Papel da chave');
    expect(await devRole.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['DEVELOPER', 'VIEWER']);
    expect(await devRole.inputValue()).toBe('DEVELOPER');
    await dev.context.close();
  }, 240_000);

  it('password change: a wrong current password is shown at its field, the right one saves', async () => {
    const { page } = owner;
    shotOnFailure(page, 'password');
    await nav(page, 'Minha conta');
    await field(page, 'Senha atual').fill('not-my-password');
    await field(page, 'Nova senha (12 a 128 caracteres)').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    const current = field(page, 'Senha atual');
    const errorId = (await current.getAttribute('aria-describedby'))?.split(' ').find((id) => id.endsWith('-error'));
    await page.getByText('currentPassword: invalid').waitFor();
    if (errorId) expect(await page.locator(`[id="${errorId}"]`).textContent()).toContain('currentPassword: invalid');
    expect(await field(page, 'Nova senha (12 a 128 caracteres)').inputValue()).toBe(NEW_PASSWORD);
    await current.fill(PASSWORD);
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await page.getByText('Senha alterada').waitFor();
    expect((await http(t.base, 'POST', '/auth/login', { body: { email: OWNER, password: NEW_PASSWORD } })).status).toBe(200);
  }, 240_000);

  it('TOTP: enrol with the QR page, then login asks for the code; a wrong code keeps e-mail and password', async () => {
    const { page } = owner;
    shotOnFailure(page, 'totp');
    await nav(page, 'Minha conta');
    await page.getByRole('button', { name: 'Ativar autenticador' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByRole('img', { name: 'QR Code TOTP' }).waitFor();
    await screenshotBoth(page, 'account-totp');
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
    await field(page, 'Código de 6 dígitos').fill(totp.generate());
    await page.getByRole('button', { name: 'Confirmar e ativar' }).click();
    await poll(() => page.getByTestId('totp-state').textContent()).toBe('Ativada');
    await screenshotBoth(page, 'account');

    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    await logIn(page, OWNER, NEW_PASSWORD);
    const code = field(page, 'Código do autenticador (6 dígitos)');
    await code.waitFor();
    await code.fill('000000');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await poll(() => code.getAttribute('aria-invalid')).toBe('true');
    expect(await field(page, 'E-mail').inputValue()).toBe(OWNER);
    expect(await field(page, 'Senha').inputValue()).toBe(NEW_PASSWORD);
    await screenshotBoth(page, 'login-totp');
    // The next step's code: the enrolment's code may not be used twice within its window.
    await code.fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Padaria do João' }).waitFor();
  }, 240_000);

  it('English can be chosen; money stays in reais', async () => {
    const { page } = owner;
    await page.getByLabel('Idioma').selectOption('en');
    await nav(page, 'Overview');
    await page.getByText('Received per day (last 30 days)').waitFor();
    expect(await page.getByTestId('balance-available').textContent()).toMatch(/^R\$ \d/);
    await screenshotBoth(page, 'overview-en');
    await page.getByLabel('Language').selectOption('pt-BR');
  }, 240_000);
});
