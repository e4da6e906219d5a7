import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { events, expectError, pay, validTaxId } from '../charges/support.js';
import { cart, createLink } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ PUBLIC_URL: 'https://pay.loja.example' }); });
afterAll(async () => { await t?.close(); });

const form = (id: string, fields: Record<string, string>, ip = '203.0.113.7') =>
  t.app.inject({ method: 'POST', url: `/l/${id}`, remoteAddress: ip, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
const json = (id: string, body: unknown, ip = '203.0.113.8') =>
  t.app.inject({ method: 'POST', url: `/l/${id}/checkouts`, remoteAddress: ip, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('the link page form', () => {
  it('a wrong CPF is shown beside its field with what was typed kept; a right one redirects (303) to the pay page', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amountRange: { min: 500, max: 500_000 }, customerFields: ['name', 'email', 'taxId'] });
    const bad = await form(link.id, { amount: '1.234,56', name: 'Bruno <b>Lima</b>', email: 'bruno@example.com', taxId: '123.456.789-00' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="taxId-error"');
    expect(bad.body).toContain('value="123.456.789-00"');
    expect(bad.body).toContain('value="Bruno &lt;b&gt;Lima&lt;/b&gt;"');
    const cpf = validTaxId();
    const good = await form(link.id, { amount: '1.234,56', name: 'Bruno Lima', email: 'bruno@example.com', taxId: `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}` });
    expect(good.statusCode, good.body).toBe(303);
    const id = String(good.headers.location).replace('/pay/', '');
    const k = (await t.request('GET', `/checkouts/${id}`, { key: m.key })).body.data;
    expect(k).toMatchObject({ amount: 123_456, paymentLinkId: link.id, customer: { name: 'Bruno Lima', taxId: cpf, email: 'bruno@example.com' } });
  });
});

describe('POST /payment-links', () => {
  it('answers every field; amount of a cart link is its total; counters start at zero', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { items: cart, description: 'Kit', customerFields: ['email'], maxPayments: 3, activeUntil: '2099-01-01T00:00:00.000Z', completionUrl: 'https://loja.example/ok', checkoutExpiresIn: 900 });
    expect(link).toEqual({
      id: link.id, name: 'Curso de pão', status: 'ACTIVE', items: cart, amount: 11_480, amountRange: null, description: 'Kit', customerFields: ['email'],
      maxPayments: 3, activeUntil: '2099-01-01T00:00:00.000Z', completionUrl: 'https://loja.example/ok', url: `https://pay.loja.example/l/${link.id}`,
      payments: 0, amountReceived: 0, createdAt: link.createdAt,
    });
    expect(link.id).toMatch(/^plk_[0-9A-Za-z]{22}$/);
    expect((await t.request('GET', `/payment-links/${link.id}`, { key: m.key })).body.data).toEqual(link);
  });

  it.each([
    [{}, 'amount: give exactly one of items, amount or amountRange'],
    [{ amount: 1000, amountRange: { min: 100, max: 200 } }, 'amount: give exactly one of items, amount or amountRange'],
    [{ amount: 99 }, 'amount: must be >= 100'],
    [{ amountRange: { min: 2000, max: 1000 } }, 'amountRange: min must be <= max'],
    [{ amount: 1000, customerFields: ['cpf'] }, undefined],
    [{ amount: 1000, maxPayments: 0 }, 'maxPayments: must be >= 1'],
    [{ amount: 1000, checkoutExpiresIn: 86_401 }, undefined],
    [{ amount: 1000, activeUntil: 'tomorrow' }, undefined],
    [{ amount: 1000, completionUrl: 'ftp://x.example' }, 'completionUrl: must be an absolute http(s) URL'],
    [{ amount: 1000, name: '' }, undefined],
  ])('refuses %j', async (body, message) => {
    const m = await t.merchant();
    expectError(await t.request('POST', '/payment-links', { key: m.key, body: { name: 'x', ...body } }), 400, 'VALIDATION_ERROR', message);
  });

  it('PATCH {active} deactivates: the page says so and the JSON route is INVALID_STATE; list filters by status; other merchants get 404', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 2500 });
    const off = await t.request('PATCH', `/payment-links/${link.id}`, { key: m.key, body: { active: false } });
    expect(off.body.data.status).toBe('INACTIVE');
    expectError(await t.request('PATCH', `/payment-links/${link.id}`, { key: m.key, body: {} }), 400, 'VALIDATION_ERROR');
    const page = await t.app.inject({ url: `/l/${link.id}` });
    expect(page.body).toContain('Este link de pagamento está desativado.');
    expect(page.body).not.toContain('<form');
    const res = await json(link.id, {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'INVALID_STATE', message: 'Payment link is INACTIVE' });
    expect((await t.request('GET', '/payment-links?status=ACTIVE', { key: m.key })).body.data).toEqual([]);
    expect((await t.request('GET', '/payment-links?status=INACTIVE', { key: m.key })).body.data.map((l: any) => l.id)).toEqual([link.id]);
    const stranger = await t.merchant();
    expectError(await t.request('GET', `/payment-links/${link.id}`, { key: stranger.key }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `/payment-links/${link.id}`, { key: stranger.key, body: { active: true } }), 404, 'NOT_FOUND');
    expect((await t.request('GET', '/payment-links', { key: stranger.key })).body.data).toEqual([]);
  });

  it('past activeUntil makes no checkout', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 2500, activeUntil: '2020-01-01T00:00:00.000Z' });
    expect((await json(link.id, {})).json()).toMatchObject({ error: 'INVALID_STATE' });
    expect((await t.app.inject({ url: `/l/${link.id}` })).body).toContain('não está mais disponível');
  });
});

describe('checkouts from a link', () => {
  it('counters count PAID, REFUNDED and DISPUTED checkouts exactly, payments made concurrently', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 2500 });
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => json(link.id, {}, `198.51.100.${i}`)));
    expect(made.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    const ids = made.map((r) => r.json().data.id as string);
    const charges = await Promise.all(ids.map(async (id) => (await t.request('GET', `/checkouts/${id}`, { key: m.key })).body.data.chargeId as string));
    await Promise.all(charges.slice(0, 4).map((c) => pay(t, c)));
    await t.request('POST', `/checkouts/${ids[0]}/refund`, { key: m.key });
    await t.admin('POST', `/admin/simulator/charges/${charges[1]}/dispute`);
    const after = (await t.request('GET', `/payment-links/${link.id}`, { key: m.key })).body.data;
    expect(after).toMatchObject({ payments: 4, amountReceived: 10_000 });
    expect((await t.request('GET', `/checkouts?paymentLinkId=${link.id}`, { key: m.key })).body.data).toHaveLength(6);
    expect((await events(t, m.id, 'CHECKOUT_PAID'))).toHaveLength(4);
    await t.assertLedger();
  });

  it('maxPayments counts paid checkouts only: open ones hold no place; once reached, no checkout (INVALID_STATE, the page says so)', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 2500, maxPayments: 1 });
    const both = await Promise.all([json(link.id, {}, '192.0.2.1'), json(link.id, {}, '192.0.2.2')]);
    expect(both.map((r) => r.statusCode)).toEqual([201, 201]);
    const [first, second] = both.map((r) => r.json().data.id as string);
    await pay(t, (await t.request('GET', `/checkouts/${first}`, { key: m.key })).body.data.chargeId);
    expect((await json(link.id, {}, '192.0.2.3')).json()).toMatchObject({ error: 'INVALID_STATE', message: 'Payment link has reached its maxPayments' });
    expect((await t.app.inject({ url: `/l/${link.id}` })).body).toContain('atingiu o limite de pagamentos');
    // A checkout made before the limit was reached stays payable, and counts (docs/contract/checkouts.md#max-payments).
    await pay(t, (await t.request('GET', `/checkouts/${second}`, { key: m.key })).body.data.chargeId);
    expect((await t.request('GET', `/payment-links/${link.id}`, { key: m.key })).body.data).toMatchObject({ payments: 2, amountReceived: 5000 });
    await t.assertLedger();
  });

  it('at most 10 checkouts a minute per address per link: RATE_LIMITED with Retry-After; another address or link is not held back', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 1000 });
    const other = await createLink(t, m, { amount: 1000 });
    await t.pool.query('DELETE FROM payment_link_hits');
    // Counted in a clock minute: start right after one begins, so all eleven fall in the same window.
    const left = 60 - new Date().getSeconds();
    if (left < 10) await new Promise((r) => setTimeout(r, left * 1000 + 200));
    for (let i = 0; i < 10; i++) expect((await json(link.id, {}, '203.0.113.50')).statusCode).toBe(201);
    const limited = await json(link.id, {}, '203.0.113.50');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const page = await form(link.id, {}, '203.0.113.50');
    expect(page.statusCode).toBe(429);
    expect(page.body).toContain('Muitas tentativas');
    expect((await json(link.id, {}, '203.0.113.51')).statusCode).toBe(201);
    expect((await json(other.id, {}, '203.0.113.50')).statusCode).toBe(201);
  }, 30_000);

  it('customer fields make a customer, and reuse it by taxId (else e-mail); JSON validation names the field', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amount: 1000, customerFields: ['name', 'email', 'taxId', 'phone'] });
    const taxId = validTaxId();
    const body = { name: 'Carla Dias', email: 'carla@example.com', taxId, phone: '(11) 98888-7777' };
    const a = (await json(link.id, body)).json().data;
    const b = (await json(link.id, { ...body, email: 'other@example.com' })).json().data;
    const [ka, kb] = await Promise.all([a, b].map(async (k) => (await t.request('GET', `/checkouts/${k.id}`, { key: m.key })).body.data));
    expect(ka.customer.id).toBe(kb.customer.id);
    expect(ka.customer).toMatchObject({ name: 'Carla Dias', taxId, phone: '11988887777' });
    const missing = (await json(link.id, { name: 'x', email: 'x@example.com', phone: '11988887777' })).json();
    expect(missing).toMatchObject({ error: 'VALIDATION_ERROR', message: 'taxId: required' });
    const emailOnly = await createLink(t, m, { amount: 1000, customerFields: ['email'] });
    const c1 = (await json(emailOnly.id, { email: 'Dora@Example.com' })).json().data;
    const c2 = (await json(emailOnly.id, { email: 'dora@example.com' })).json().data;
    const [kc1, kc2] = await Promise.all([c1, c2].map(async (k) => (await t.request('GET', `/checkouts/${k.id}`, { key: m.key })).body.data));
    expect(kc1.customer.id).toBe(kc2.customer.id);
  });

  it('range links: the amount within the range, in cents from JSON; the form reads pt-BR and dotted decimals exactly', async () => {
    const m = await t.merchant();
    const link = await createLink(t, m, { amountRange: { min: 1000, max: 200_000 } });
    expect((await json(link.id, {})).json()).toMatchObject({ error: 'VALIDATION_ERROR', message: 'amount: required' });
    expect((await json(link.id, { amount: 999 })).json()).toMatchObject({ message: 'amount: below the minimum' });
    expect((await json(link.id, { amount: '1000' })).json()).toMatchObject({ error: 'VALIDATION_ERROR' });
    for (const [typed, cents] of [['1.234,56', 123_456], ['1234.56', 123_456], ['R$ 10,1', 1010], ['1,234.56', 123_456], ['12', 1200]] as const) {
      const res = await form(link.id, { amount: typed }, `203.0.113.${cents % 250}`);
      expect(res.statusCode, typed).toBe(303);
      const k = (await t.request('GET', `/checkouts/${String(res.headers.location).slice(5)}`, { key: m.key })).body.data;
      expect(k.amount, typed).toBe(cents);
    }
    for (const typed of ['12,345', '1.2.3', '1e3', '0x10', '-5', '10,,5', '１２']) {
      const res = await form(link.id, { amount: typed });
      expect(res.statusCode, typed).toBe(400);
      expect(res.body).toContain('id="amount-error"');
    }
  });
});
