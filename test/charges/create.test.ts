import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrCode } from '../../src/pix/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { CHARGE_KEYS, createCharge, events, expectError, validTaxId, type Merchant } from './support.js';

let t: TestContext;
let m: Merchant;
let pixKey: string;
beforeAll(async () => {
  t = await createTestContext();
  pixKey = crypto.randomUUID();
  m = await t.merchant({ pixKey: { type: 'CHAVE_ALEATORIA', key: pixKey }, city: 'Rio de Janeiro' });
});
afterAll(async () => { await t?.close(); });

const create = (body: Record<string, unknown>, key = m.key) => t.request('POST', '/transparents/create', { key, body });
const CREATE_KEYS = [...CHARGE_KEYS, 'imageBase64'].sort();

describe('POST /transparents/create', () => {
  it('answers 201 with the whole charge, a valid static BR Code and its QR image', async () => {
    const res = await create({ method: 'PIX', amount: 1050, description: 'Pedido 42' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const c = res.body.data;
    expect(Object.keys(c).sort()).toEqual(CREATE_KEYS);
    expect(c).toMatchObject({
      amount: 1050, status: 'PENDING', description: 'Pedido 42', split: [], paidAt: null, end2endId: null, fee: null, netAmount: null,
    });
    expect(c.id).toMatch(/^chg_[A-Za-z0-9]{22}$/);
    expect(c.txid).toMatch(/^[A-Za-z0-9]{25}$/);
    expect(c.imageBase64).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    expect(Date.parse(c.expiresAt) - Date.parse(c.createdAt)).toBe(86_400_000);
    expect(parseBrCode(c.brCode)).toMatchObject({
      gui: 'br.gov.bcb.pix', pixKey, amount: 1050, txid: c.txid, merchantName: 'Loja Teste', merchantCity: 'Rio de Janeiro', description: 'Pedido 42',
    });
  });

  it('honours expiresIn and accepts 1000.0 as the integer 1000', async () => {
    const res = await create({ method: 'PIX', amount: 1000.0, expiresIn: 60 });
    expect(res.status).toBe(201);
    expect(res.body.data.amount).toBe(1000);
    expect(Date.parse(res.body.data.expiresAt) - Date.parse(res.body.data.createdAt)).toBe(60_000);
  });

  it('records CHARGE_CREATED with the charge as check shows it, without the image', async () => {
    const cust = (await t.request('POST', '/customers', { key: m.key, body: { email: 'ev@example.com', phone: '+5511988887777' } })).body.data;
    const c = await createCharge(t, m, { customerId: cust.id });
    const created = (await events(t, m.id, 'CHARGE_CREATED')).find((e) => e.data.id === c.id)!;
    const checked = (await t.request('GET', `/transparents/check?id=${c.id}`, { key: m.key })).body.data;
    const { imageBase64: _image, ...withoutImage } = checked;
    expect(created.data).toEqual(withoutImage);
    expect(created.data.customer.phone).toBe('+5511988887777');
  });

  it('without a customer (no transaction), CHARGE_CREATED carries the split and exact timestamps, its body in API key order', async () => {
    const recipient = await t.merchant();
    const c = await createCharge(t, m, { amount: 2000, expiresIn: 3600, split: [{ merchantId: recipient.id, mode: 'PERCENT', value: 25 }] });
    const { rows: [event] } = await t.pool.query<{ data: unknown; body: string }>(
      "SELECT body::jsonb -> 'data' AS data, body FROM events WHERE merchant_id = $1 AND type = 'CHARGE_CREATED' AND body::jsonb -> 'data' ->> 'id' = $2", [m.id, c.id],
    );
    const checked = (await t.request('GET', `/transparents/check?id=${c.id}`, { key: m.key })).body.data;
    const { imageBase64: _image, ...withoutImage } = checked;
    expect(event!.data).toEqual(withoutImage);
    expect(checked.split).toEqual([{ merchantId: recipient.id, mode: 'PERCENT', value: 25, amount: 500 }]);
    expect(Date.parse(checked.expiresAt) - Date.parse(checked.createdAt)).toBe(3_600_000);
    const body = JSON.parse(event!.body);
    expect(JSON.stringify(body.data)).toBe(JSON.stringify(withoutImage));
  });

  it('links a customer: {id, name, taxId, email} on create and list, plus phone on check', async () => {
    const taxId = validTaxId();
    const cust = (await t.request('POST', '/customers', {
      key: m.key, body: { email: 'payer@example.com', name: 'Payer', taxId, phone: '+5511999990000' },
    })).body.data;
    const res = await create({ method: 'PIX', amount: 1000, customerId: cust.id });
    expect(res.status).toBe(201);
    expect(res.body.data.customer).toEqual({ id: cust.id, name: 'Payer', taxId, email: 'payer@example.com' });
    const check = await t.request('GET', `/transparents/check?id=${res.body.data.id}`, { key: m.key });
    expect(check.body.data.customer).toEqual({ id: cust.id, name: 'Payer', taxId, email: 'payer@example.com', phone: '+5511999990000' });
    const list = await t.request('GET', `/transparents/list?id=${res.body.data.id}`, { key: m.key });
    expect(list.body.data[0].customer).toEqual({ id: cust.id, name: 'Payer', taxId, email: 'payer@example.com' });
  });

  it('rejects an unknown, deleted or other merchant\'s customerId', async () => {
    const other = await t.merchant();
    const foreign = (await t.request('POST', '/customers', { key: other.key, body: { email: 'f@example.com' } })).body.data;
    const gone = (await t.request('POST', '/customers', { key: m.key, body: { email: 'g@example.com' } })).body.data;
    await t.request('DELETE', `/customers/${gone.id}`, { key: m.key });
    for (const customerId of ['cust_unknown', foreign.id, gone.id]) {
      expectError(await create({ method: 'PIX', amount: 1000, customerId }), 400, 'VALIDATION_ERROR', 'customerId: not found');
    }
  });

  it.each([
    [{ amount: 1000 }, 'method: is required'],
    [{ method: 'BOLETO', amount: 1000 }, 'method: must be PIX'],
    [{ method: 'PIX' }, 'amount: is required'],
    [{ method: 'PIX', amount: 99 }, 'amount: must be >= 100'],
    [{ method: 'PIX', amount: 100_000_001 }, 'amount: must be <= 100000000'],
    [{ method: 'PIX', amount: '1000' }, 'amount: must be an integer'],
    [{ method: 'PIX', amount: 10.5 }, 'amount: must be an integer'],
    [{ method: 'PIX', amount: 1000, expiresIn: 59 }, 'expiresIn: must be >= 60'],
    [{ method: 'PIX', amount: 1000, expiresIn: 2_592_001 }, 'expiresIn: must be <= 2592000'],
    [{ method: 'PIX', amount: 1000, description: 'x'.repeat(141) }, 'description: must have at most 140 characters'],
    [{ method: 'PIX', amount: 1000, split: {} }, 'split: must be an array'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'BOTH', value: 1 }] }, 'split[0].mode: must be one of FIXED, PERCENT'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'FIXED', value: 0 }] }, 'split[0].value: must be >= 1'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'FIXED' }] }, 'split[0].value: is required'],
    [{ method: 'PIX', amount: 1000, split: [{ mode: 'FIXED', value: 1 }] }, 'split[0].merchantId: is required'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'PERCENT', value: 101 }] }, 'split[0].value: must be <= 100'],
    [{ method: 'PIX', amount: 1000, split: [{ merchantId: 'mer_x', mode: 'PERCENT', value: 1.5 }] }, 'split[0].value: must be an integer'],
  ])('rejects %j', async (body, message) => {
    expectError(await create(body), 400, 'VALIDATION_ERROR', message);
  });

  it('rejects more than 10 split entries', async () => {
    const split = Array.from({ length: 11 }, (_, i) => ({ merchantId: `mer_${i}`, mode: 'FIXED', value: 1 }));
    expectError(await create({ method: 'PIX', amount: 1000, split }), 400, 'VALIDATION_ERROR', 'split: must have at most 10 items');
  });

  it('bounds the amount by the merchant\'s minTicket and maxTicket', async () => {
    const bounded = await t.merchant({ minTicket: 500, maxTicket: 2000 });
    expectError(await create({ method: 'PIX', amount: 499 }, bounded.key), 400, 'VALIDATION_ERROR', 'amount: must be >= 500');
    expectError(await create({ method: 'PIX', amount: 2001 }, bounded.key), 400, 'VALIDATION_ERROR', 'amount: must be <= 2000');
    expect((await create({ method: 'PIX', amount: 500 }, bounded.key)).status).toBe(201);
    expect((await create({ method: 'PIX', amount: 2000 }, bounded.key)).status).toBe(201);
  });

  it('needs KYC approved and a PIX key (403), after schema validation and before the other rules', async () => {
    const pending = await t.merchant({ kyc: { status: 'PENDING' } });
    const noKey = await t.merchant({ pixKey: null });
    for (const who of [pending, noKey]) {
      expectError(await create({ method: 'PIX', amount: 50 }, who.key), 400, 'VALIDATION_ERROR', 'amount: must be >= 100');
      expectError(await create({ method: 'PIX', amount: 1000, customerId: 'cust_unknown' }, who.key), 403, 'FORBIDDEN');
    }
  });

  it('validates split recipients, naming the entry', async () => {
    const ok = await t.merchant();
    const unapproved = await t.merchant({ kyc: { status: 'PENDING' } });
    const suspended = await t.merchant();
    await t.admin('PATCH', `/admin/merchants/${suspended.id}`, { suspended: true });
    const keyless = await t.merchant({ pixKey: null });
    const split = (entry: Record<string, unknown>) => [{ merchantId: ok.id, mode: 'FIXED', value: 10 }, { mode: 'FIXED', value: 10, ...entry }];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ merchantId: m.id }, 'split[1].merchantId: cannot be the charging merchant'],
      [{ merchantId: ok.id }, 'split[1].merchantId: duplicate recipient'],
      [{ merchantId: 'mer_doesnotexist' }, 'split[1].merchantId: not found'],
      [{ merchantId: unapproved.id }, 'split[1].merchantId: KYC not approved'],
      [{ merchantId: suspended.id }, 'split[1].merchantId: merchant is suspended'],
      [{ merchantId: keyless.id }, 'split[1].merchantId: has no PIX key'],
    ];
    for (const [entry, message] of cases) {
      expectError(await create({ method: 'PIX', amount: 1000, split: split(entry) }), 400, 'VALIDATION_ERROR', message);
    }
  });

  it('needs Σ split and the fee to leave netAmount >= 0', async () => {
    const r = await t.merchant();
    const fee = await t.merchant({ chargeFeeFixed: 100, chargeFeeBps: 1000 }); // fee on 1000 = 100 + 100
    const body = (value: number) => ({ method: 'PIX', amount: 1000, split: [{ merchantId: r.id, mode: 'FIXED', value }] });
    expectError(await create(body(801), fee.key), 400, 'VALIDATION_ERROR', 'split: total 801 exceeds the amount after fees (800)');
    const exact = await create(body(800), fee.key);
    expect(exact.status).toBe(201);
    expect(exact.body.data.split).toEqual([{ merchantId: r.id, mode: 'FIXED', value: 800, amount: 800 }]);
    const pricey = await t.merchant({ chargeFeeFixed: 150 });
    expectError(await create({ method: 'PIX', amount: 100 }, pricey.key), 400, 'VALIDATION_ERROR', 'amount: must cover the fee (150)');
    const all = await create({ method: 'PIX', amount: 1000, split: [{ merchantId: r.id, mode: 'PERCENT', value: 100 }] });
    expect(all.status).toBe(201);
    expect(all.body.data.split[0].amount).toBe(1000);
  });

  it('floors PERCENT shares of the gross amount', async () => {
    const [a, b] = [await t.merchant(), await t.merchant()];
    const res = await create({
      method: 'PIX', amount: 999, split: [{ merchantId: a.id, mode: 'PERCENT', value: 33 }, { merchantId: b.id, mode: 'PERCENT', value: 1 }],
    });
    expect(res.body.data.split).toEqual([
      { merchantId: a.id, mode: 'PERCENT', value: 33, amount: 329 },
      { merchantId: b.id, mode: 'PERCENT', value: 1, amount: 9 },
    ]);
  });

  it('replays the same answer for the same Idempotency-Key and creates one charge', async () => {
    const own = await t.merchant();
    const headers = { 'idempotency-key': 'create-once' };
    const body = { method: 'PIX', amount: 1234 };
    const a = await t.request('POST', '/transparents/create', { key: own.key, body, headers });
    const b = await t.request('POST', '/transparents/create', { key: own.key, body, headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    const list = await t.request('GET', '/transparents/list', { key: own.key });
    expect(list.body.data).toHaveLength(1);
  });
});

describe('GET /transparents/check', () => {
  it('answers the charge with its image; another merchant\'s or unknown id is 404', async () => {
    const c = await createCharge(t, m, { amount: 777 });
    const res = await t.request('GET', `/transparents/check?id=${c.id}`, { key: m.key });
    expect(res.status).toBe(200);
    // check adds the amount due today: null on an immediate charge (docs/contract/due-date-charges.md#charge-object)
    expect(res.body.data).toEqual({ ...c, amountDue: null, breakdown: null });
    const other = await t.merchant();
    expectError(await t.request('GET', `/transparents/check?id=${c.id}`, { key: other.key }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/transparents/check?id=chg_nope', { key: m.key }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', '/transparents/check', { key: m.key }), 400, 'VALIDATION_ERROR', 'id: is required');
  });
});

describe('GET /transparents/list', () => {
  it('lists the merchant\'s charges newest first without images, filtered by id, email and status', async () => {
    const own = await t.merchant();
    const cust = (await t.request('POST', '/customers', { key: own.key, body: { email: 'Buyer@Example.com' } })).body.data;
    const a = await createCharge(t, own, { customerId: cust.id });
    const b = await createCharge(t, own);
    await t.admin('POST', `/admin/simulator/charges/${b.id}/pay`);
    const list = async (q = '') => (await t.request('GET', `/transparents/list${q}`, { key: own.key })).body;
    const all = await list();
    expect(all.data.map((c: any) => c.id)).toEqual([b.id, a.id]);
    expect(Object.keys(all.data[1]).sort()).toEqual([...CHARGE_KEYS, 'customer'].sort());
    expect(all.data[0]).not.toHaveProperty('customer');
    expect((await list(`?id=${a.id}`)).data.map((c: any) => c.id)).toEqual([a.id]);
    expect((await list('?email=buyer@example.com')).data.map((c: any) => c.id)).toEqual([a.id]);
    expect((await list('?status=PAID')).data.map((c: any) => c.id)).toEqual([b.id]);
    expect((await list('?status=PENDING')).data.map((c: any) => c.id)).toEqual([a.id]);
    expect((await list('?status=EXPIRED')).data).toEqual([]);
    const other = await t.merchant();
    expect((await t.request('GET', `/transparents/list?id=${a.id}`, { key: other.key })).body.data).toEqual([]);
    expectError(await t.request('GET', '/transparents/list?status=LOST', { key: own.key }), 400, 'VALIDATION_ERROR');
  });

  it('pages with cursors bound to the filters', async () => {
    const own = await t.merchant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.unshift((await createCharge(t, own)).id);
    const p1 = (await t.request('GET', '/transparents/list?limit=2', { key: own.key })).body;
    expect(p1.data.map((c: any) => c.id)).toEqual(ids.slice(0, 2));
    expect(p1.pagination.hasMore).toBe(true);
    const p2 = (await t.request('GET', `/transparents/list?limit=2&after=${p1.pagination.next}`, { key: own.key })).body;
    expect(p2.data.map((c: any) => c.id)).toEqual(ids.slice(2));
    expect(p2.pagination).toMatchObject({ hasMore: false, next: null });
    const back = (await t.request('GET', `/transparents/list?limit=2&before=${p2.pagination.before}`, { key: own.key })).body;
    expect(back.data.map((c: any) => c.id)).toEqual(ids.slice(0, 2));
    expectError(await t.request('GET', `/transparents/list?status=PAID&after=${p1.pagination.next}`, { key: own.key }), 400, 'VALIDATION_ERROR', 'after: invalid cursor');
  });
});
