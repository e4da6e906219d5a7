// docs/contract/subscriptions.md: creating subscriptions on each journey, their object, the states and their
// events, cancelling, roles and idempotency — over HTTP against PostgreSQL, the simulator playing the payer's bank.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrCode } from '../../src/pix/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { events, expectError, type Merchant } from '../charges/support.js';
import {
  authorize, chargesOnceThere, createBody, cycleCharges, getSub, inDays, payer, sim, subscribe, SUBSCRIPTION_KEYS, waitForStatus,
} from './support.js';

let t: TestContext;
let m: Merchant;
let customerId: string;

beforeAll(async () => {
  t = await createTestContext({ PUBLIC_URL: 'https://pay.loja.example' });
  m = await t.merchant();
  customerId = await payer(t, m);
});
afterAll(async () => { await t?.close(); });

const post = (body: unknown, key = m.key) => t.request('POST', '/subscriptions', { key, body });
const template = (brCode: string, id: string) => parseBrCode(brCode).fields.find((f) => f.id === id);

describe('POST /subscriptions', () => {
  it('a fixed-amount QR subscription (journey 2): 201 CREATED with the recurrence code, location served by Pixgate in template 80', async () => {
    const res = await post(createBody(customerId, { endDate: inDays(200), retryPolicy: 'THREE_IN_7_DAYS' }));
    expect(res.status).toBe(201);
    const s = res.body.data;
    expect(Object.keys(s).sort()).toEqual(SUBSCRIPTION_KEYS);
    expect(s).toMatchObject({
      status: 'CREATED', journey: 'QR', amount: 2_990, minAmount: null, frequency: 'MONTHLY', startDate: inDays(3), endDate: inDays(200),
      contract: 'Plano mensal 123', description: 'Streaming', retryPolicy: 'THREE_IN_7_DAYS', firstCharge: null, authorizedAt: null,
      endedAt: null, endedBy: null, customer: { id: customerId, name: 'Maria Pagadora' },
    });
    expect(s.id).toMatch(/^sub_[A-Za-z0-9]{22}$/);
    expect(s.nextDueDate >= s.startDate).toBe(true);
    const rec = template(s.brCode, '80')!;
    expect(rec.value).toMatch(/^0014br\.gov\.bcb\.pix25\d\dpay\.loja\.example\/pix\/v2\/rec\/[A-Za-z0-9]{32}$/);
    expect(template(s.brCode, '62')!.value).toBe('0503***');
    expect(s.imageBase64).toMatch(/^data:image\/png;base64,/);
    // GET shows the code while CREATED; lists do not.
    expect((await getSub(t, m, s.id)).brCode).toBe(s.brCode);
    const list = await t.request('GET', '/subscriptions?limit=100', { key: m.key });
    const item = list.body.data.find((x: { id: string }) => x.id === s.id);
    expect([item.brCode, item.imageBase64]).toEqual([null, null]);
  });

  it('the defaults: retryPolicy NONE, no end; a variable amount carries minAmount and no amount', async () => {
    const s = await subscribe(t, m, customerId, { amount: undefined, minAmount: 1_000, description: undefined, frequency: 'WEEKLY' });
    expect(s).toMatchObject({ amount: null, minAmount: 1_000, retryPolicy: 'NONE', endDate: null, description: null, frequency: 'WEEKLY' });
  });

  it('journey 3 (QR_WITH_PAYMENT): an immediate first charge of the subscription, and a composite code — the charge\'s with template 80 added', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 4_990 } });
    expect(s.firstCharge).toMatchObject({ amount: 4_990, status: 'PENDING', subscriptionId: s.id, dueDate: null });
    const code = s.brCode as string;
    expect(template(code, '62')!.value).toContain(s.firstCharge.txid);
    expect(template(code, '54')!.value).toBe('49.90');
    expect(template(code, '80')!.value).toContain('/pix/v2/rec/');
    // The charge itself keeps its own code; only the subscription's is composite.
    expect(template(s.firstCharge.brCode, '80')).toBeUndefined();
    const check = await t.request('GET', `/transparents/check?id=${s.firstCharge.id}`, { key: m.key });
    expect(check.body.data.subscriptionId).toBe(s.id);
  });

  it('journey 1 (PUSH): no code; the request goes to the payer\'s account', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'PUSH', payerAccount: { ispb: '12345678', branch: '0001', account: '123456' }, requestExpiresIn: 3600 });
    expect([s.status, s.brCode, s.imageBase64, s.firstCharge]).toEqual(['CREATED', null, null, null]);
  });

  it('refuses what part of the contract forbids, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ minAmount: 1_000 }, 'amount: give amount or minAmount, not both'],
      [{ amount: undefined }, 'amount: required (or minAmount, for a variable amount)'],
      [{ startDate: inDays(1) }, `startDate: must be at least 2 days after today (${inDays(2)} or later)`],
      [{ startDate: '2026-02-30' }, 'startDate: must be a date YYYY-MM-DD'],
      [{ endDate: inDays(2) }, 'endDate: must be on or after startDate'],
      [{ firstPayment: { amount: 1_000 } }, 'firstPayment: only for journey QR_WITH_PAYMENT'],
      [{ journey: 'QR_WITH_PAYMENT' }, 'firstPayment: required for journey QR_WITH_PAYMENT'],
      [{ journey: 'PUSH' }, 'payerAccount: required for journey PUSH'],
      [{ journey: 'PUSH', payerAccount: { ispb: '12345678', account: '1' } }, 'payerAccount.branch: is required'],
      [{ payerAccount: { ispb: '12345678', branch: '1', account: '1' } }, 'payerAccount: only for journey PUSH'],
      [{ requestExpiresIn: 3600 }, 'requestExpiresIn: only for journey PUSH'],
      [{ customerId: 'cust_0000000000000000000000' }, 'customerId: not found'],
      [{ contract: 'x'.repeat(36) }, 'contract: must have at most 35 characters'],
      [{ frequency: 'DAILY' }, 'frequency: must be one of WEEKLY, MONTHLY, QUARTERLY, SEMIANNUAL, ANNUAL'],
      [{ journey: 'PUSH', payerAccount: { ispb: '1234', branch: '1', account: '1' } }, 'payerAccount.ispb: has an invalid format'],
      [{ journey: 'PUSH', payerAccount: { ispb: '12345678', branch: '1', account: '1' }, requestExpiresIn: 60 }, 'requestExpiresIn: must be >= 3600'],
      [{ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 50 } }, 'firstPayment.amount: must be >= 100'],
    ];
    for (const [over, message] of cases) expectError(await post(createBody(customerId, over)), 400, 'VALIDATION_ERROR', message);
    const anonymous = (await t.request('POST', '/customers', { key: m.key, body: { email: 'no-tax-id@example.com', name: 'Sem CPF' } })).body.data.id;
    expectError(await post(createBody(anonymous)), 400, 'VALIDATION_ERROR', 'customerId: the customer needs a name and a taxId (the payer of a recurrence)');
    const pending = await t.merchant({ kyc: { status: 'PENDING' } });
    expectError(await post(createBody(customerId), pending.key), 403, 'FORBIDDEN');
    const other = await t.merchant();
    expectError(await post(createBody(customerId), other.key), 400, 'VALIDATION_ERROR', 'customerId: not found');
    const small = await t.merchant({ minTicket: 5_000 });
    expectError(await post(createBody(await payer(t, small)), small.key), 400, 'VALIDATION_ERROR', 'amount: must be >= 5000');
  });

  it('the fee: a fixed amount, the least variable amount and a first payment must each cover it, the message naming the field', async () => {
    const fee = await t.merchant({ chargeFeeFixed: 500 });
    const c = await payer(t, fee);
    const ask = (over: Record<string, unknown>) => post(createBody(c, over), fee.key);
    expectError(await ask({ amount: 499 }), 400, 'VALIDATION_ERROR', 'amount: must cover the fee (500)');
    expectError(await ask({ amount: undefined, minAmount: 499 }), 400, 'VALIDATION_ERROR', 'minAmount: must cover the fee (500)');
    expectError(await ask({ journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 499 } }), 400, 'VALIDATION_ERROR', 'firstPayment.amount: must cover the fee (500)');
    expect((await ask({ amount: undefined, minAmount: 500, journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 500 } })).status).toBe(201);
  });

  it('dates at the calendar\'s end: an endDate of 9999-12-31 is a subscription, a variable cycle asked for that day is not a cycle', async () => {
    const far = await post(createBody(customerId, { frequency: 'WEEKLY', endDate: '9999-12-31' }));
    expect([far.status, far.body.data?.endDate]).toEqual([201, '9999-12-31']);
    const open = await subscribe(t, m, customerId, { amount: undefined, minAmount: 1_000, frequency: 'WEEKLY' });
    await authorize(t, open.id);
    expectError(await t.request('POST', `/subscriptions/${open.id}/charges`, { key: m.key, body: { amount: 1_000, dueDate: '9999-12-31' } }),
      400, 'VALIDATION_ERROR', 'dueDate: is not the due date of a cycle of the subscription');
    // Open-ended from the calendar's last day: its first cycle due then.
    const last = await subscribe(t, m, customerId, { startDate: '9999-12-31', frequency: 'WEEKLY' });
    expect((await authorize(t, last.id)).nextDueDate).toBe('9999-12-31');
  });

  it('an Idempotency-Key replays the create: one subscription, one recurrence', async () => {
    const headers = { 'idempotency-key': 'sub-create-1' };
    const body = createBody(customerId);
    const [a, b] = [await t.request('POST', '/subscriptions', { key: m.key, body, headers }), await t.request('POST', '/subscriptions', { key: m.key, body, headers })];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data.id).toBe(a.body.data.id);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM subscriptions WHERE merchant_id = $1 AND created_at >= now() - interval \'1 minute\' AND id = $2', [m.id, a.body.data.id]);
    expect(rows[0].n).toBe(1);
  });
});

describe('states and events', () => {
  it('QR: authorize → ACTIVE with SUBSCRIPTION_AUTHORIZED (data: the subscription); the code is gone', async () => {
    const s = await subscribe(t, m, customerId);
    const active = await authorize(t, s.id);
    expect(active).toMatchObject({ id: s.id, status: 'ACTIVE', brCode: null, imageBase64: null });
    expect(active.authorizedAt).not.toBeNull();
    const [event] = (await events(t, m.id, 'SUBSCRIPTION_AUTHORIZED')).filter((e) => e.data.id === s.id);
    expect(event!.data).toMatchObject({ id: s.id, status: 'ACTIVE', brCode: null });
    expect(Object.keys(event!.data).sort()).toEqual(SUBSCRIPTION_KEYS);
    // Wrong state for the payer's bank: INVALID_STATE.
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/authorize`), 400, 'INVALID_STATE');
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/reject`), 400, 'INVALID_STATE');
  });

  it('journey 3: authorizing pays the first charge (credited as every charge) and activates the subscription', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 4_990 } });
    const before = (await t.request('GET', '/me/balance', { key: m.key })).body.data.available;
    const active = await authorize(t, s.id);
    expect(active.status).toBe('ACTIVE');
    expect(active.firstCharge).toMatchObject({ status: 'PAID', amount: 4_990 });
    const after = (await t.request('GET', '/me/balance', { key: m.key })).body.data.available;
    expect(after - before).toBe(active.firstCharge.netAmount);
    const paid = (await events(t, m.id, 'CHARGE_PAID')).filter((e) => e.data.id === s.firstCharge.id);
    expect(paid).toHaveLength(1);
    await t.assertLedger();
  });

  it('journey 3: the first charge paid any other way (the simulator\'s pay) activates it too, through the payment\'s job', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 1_500 } });
    expect((await t.admin('POST', `/admin/simulator/charges/${s.firstCharge.id}/pay`)).status).toBe(200);
    await waitForStatus(t, m, s.id, 'ACTIVE');
  });

  it('journey 3 ended before it was paid (the payer rejects, the merchant cancels): its first charge is EXPIRED, no longer payable', async () => {
    for (const end of ['reject', 'cancel'] as const) {
      const s = await subscribe(t, m, customerId, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 2_500 } });
      const ended = end === 'reject'
        ? await sim(t, `/subscriptions/${s.id}/reject`)
        : (await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key })).body.data;
      expect(ended.status).toBe(end === 'reject' ? 'REJECTED' : 'CANCELLED');
      expect(ended.firstCharge).toMatchObject({ id: s.firstCharge.id, status: 'EXPIRED' });
      expectError(await t.admin('POST', `/admin/simulator/charges/${s.firstCharge.id}/pay`), 400, 'INVALID_STATE');
      // One state change, in order: the charge's CHARGE_EXPIRED, then the subscription's own event.
      const mine = (await events(t, m.id)).filter((e) => e.data.id === s.id || e.data.id === s.firstCharge.id).slice(-2);
      expect(mine.map((e) => e.type)).toEqual(['CHARGE_EXPIRED', end === 'reject' ? 'SUBSCRIPTION_REJECTED' : 'SUBSCRIPTION_CANCELLED']);
    }
  });

  it('PUSH: the payer\'s bank authorizes or rejects the request', async () => {
    const body = { journey: 'PUSH', payerAccount: { ispb: '12345678', branch: '0001', account: '99' } };
    const a = await subscribe(t, m, customerId, body);
    expect((await authorize(t, a.id)).status).toBe('ACTIVE');
    const b = await subscribe(t, m, customerId, body);
    const rejected = await sim(t, `/subscriptions/${b.id}/reject`);
    expect(rejected).toMatchObject({ status: 'REJECTED', endedBy: 'PAYER' });
    expect(rejected.endedAt).not.toBeNull();
    expect((await events(t, m.id, 'SUBSCRIPTION_REJECTED')).map((e) => e.data.id)).toContain(b.id);
  });

  it('EXPIRED when not authorized before its deadline (startDate, or the PUSH request\'s expiry): SUBSCRIPTION_EXPIRED once', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'PUSH', payerAccount: { ispb: '12345678', branch: '0001', account: '99' }, requestExpiresIn: 3600 });
    const { rows: [row] } = await t.pool.query('SELECT expires_at FROM subscriptions WHERE id = $1', [s.id]);
    expect(Math.abs(row.expires_at.getTime() - (Date.parse(s.createdAt) + 3_600_000))).toBeLessThan(2_000);
    const qr = await subscribe(t, m, customerId, { startDate: inDays(4) });
    const { rows: [qrRow] } = await t.pool.query(`SELECT expires_at = (start_date::timestamp AT TIME ZONE 'America/Sao_Paulo') AS at_start FROM subscriptions WHERE id = $1`, [qr.id]);
    expect(qrRow.at_start).toBe(true);
    // The deadline passes: its job (due then) ends it.
    await t.pool.query(`UPDATE subscriptions SET expires_at = now() - interval '1 second' WHERE id = $1`, [s.id]);
    await t.pool.query(`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = $1`, [`subscriptions.expire:${s.id}`]);
    const expired = await waitForStatus(t, m, s.id, 'EXPIRED');
    expect(expired.endedBy).toBeNull();
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/authorize`), 400, 'INVALID_STATE');
    expect((await events(t, m.id, 'SUBSCRIPTION_EXPIRED')).filter((e) => e.data.id === s.id)).toHaveLength(1);
  });

  it('cancel by the merchant (CREATED or ACTIVE): CANCELLED, endedBy MERCHANT, its unpaid cycles\' charges EXPIRED; not twice', async () => {
    const s = await subscribe(t, m, customerId, { startDate: inDays(2) });
    await authorize(t, s.id);
    const [charge] = await chargesOnceThere(t, m, s.id, 1);
    const res = await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'CANCELLED', endedBy: 'MERCHANT', nextDueDate: null });
    const [after] = await cycleCharges(t, m, s.id);
    expect(after).toMatchObject({ id: charge!.id, status: 'EXPIRED', failedReason: 'SUBSCRIPTION_CANCELLED' });
    expect((await events(t, m.id, 'CHARGE_EXPIRED')).map((e) => e.data.id)).toContain(charge!.id);
    expect((await events(t, m.id, 'SUBSCRIPTION_CANCELLED')).filter((e) => e.data.id === s.id)).toHaveLength(1);
    expectError(await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key }), 400, 'INVALID_STATE',
      'Subscription is CANCELLED; only a CREATED or ACTIVE subscription can be cancelled');
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/next-cycle`), 400, 'INVALID_STATE');
    const created = await subscribe(t, m, customerId);
    expect((await t.request('POST', `/subscriptions/${created.id}/cancel`, { key: m.key })).body.data.status).toBe('CANCELLED');
  });

  it('cancelling records its cycles\' CHARGE_EXPIRED, then SUBSCRIPTION_CANCELLED, in that order (one state change: ids grow in order)', async () => {
    for (let k = 0; k < 2; k++) {
      const s = await subscribe(t, m, customerId, { startDate: inDays(2), frequency: 'WEEKLY' });
      await authorize(t, s.id);
      await chargesOnceThere(t, m, s.id, 2);
      for (let n = 0; n < 4; n++) await sim(t, `/subscriptions/${s.id}/next-cycle`);
      expect((await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key })).status).toBe(200);
      // In the order GET /events knows them by (createdAt, then id): the six charges' first, the subscription's last.
      const mine = (await events(t, m.id)).filter((e) => e.data.id === s.id || e.data.subscriptionId === s.id).slice(-7);
      expect(mine.map((e) => e.type)).toEqual([...Array(6).fill('CHARGE_EXPIRED'), 'SUBSCRIPTION_CANCELLED']);
    }
  });

  it('cancel by the payer (an ACTIVE one only): endedBy PAYER', async () => {
    const s = await subscribe(t, m, customerId);
    expectError(await t.admin('POST', `/admin/simulator/subscriptions/${s.id}/cancel`), 400, 'INVALID_STATE');
    await authorize(t, s.id);
    expect(await sim(t, `/subscriptions/${s.id}/cancel`)).toMatchObject({ status: 'CANCELLED', endedBy: 'PAYER' });
  });
});

describe('reading', () => {
  it('GET /subscriptions filters by status and pages; another merchant\'s id is 404', async () => {
    const mine = await t.merchant();
    const c = await payer(t, mine);
    const a = await subscribe(t, mine, c);
    const b = await subscribe(t, mine, c);
    await authorize(t, b.id);
    const all = await t.request('GET', '/subscriptions?limit=1', { key: mine.key });
    expect([all.body.data[0].id, all.body.pagination.hasMore]).toEqual([b.id, true]);
    const next = await t.request('GET', `/subscriptions?limit=1&after=${all.body.pagination.next}`, { key: mine.key });
    expect(next.body.data[0].id).toBe(a.id);
    const active = await t.request('GET', '/subscriptions?status=ACTIVE', { key: mine.key });
    expect(active.body.data.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expectError(await t.request('GET', `/subscriptions/${a.id}`, { key: m.key }), 404, 'NOT_FOUND', 'Subscription not found');
    expectError(await t.request('GET', `/subscriptions/${a.id}/charges`, { key: m.key }), 404, 'NOT_FOUND');
  });
});

describe('roles', () => {
  it('creating is like creating a charge; cancelling like a refund', async () => {
    const viewer = await t.user(m.id, 'VIEWER');
    const developer = await t.user(m.id, 'DEVELOPER');
    const finance = await t.user(m.id, 'FINANCE');
    expectError(await post(createBody(customerId), viewer.token), 403, 'FORBIDDEN');
    const s = (await post(createBody(customerId), developer.token)).body.data;
    expect(s.status).toBe('CREATED');
    expectError(await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: developer.token }), 403, 'FORBIDDEN');
    expect((await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: finance.token })).status).toBe(200);
    expect((await t.request('GET', `/subscriptions/${s.id}`, { key: viewer.token })).status).toBe(200);
  });

  it('API keys by their role (part 23): FINANCE creates and cancels, DEVELOPER creates only, VIEWER reads; an Idempotency-Key is the caller\'s own', async () => {
    const owner = await t.user(m.id, 'OWNER');
    const key = async (role: string) => (await t.request('POST', '/me/api-keys', { key: owner.token, body: { name: `${role} key`, role } })).body.data.key as string;
    const [finance, developer, viewer] = [await key('FINANCE'), await key('DEVELOPER'), await key('VIEWER')];
    const s = (await post(createBody(customerId), developer)).body.data;
    expectError(await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: developer }), 403, 'FORBIDDEN', 'API key role DEVELOPER may not do this');
    expectError(await post(createBody(customerId), viewer), 403, 'FORBIDDEN', 'API key role VIEWER may not do this');
    expectError(await t.request('POST', `/subscriptions/${s.id}/charges`, { key: viewer, body: { amount: 1_000, dueDate: s.startDate } }), 403, 'FORBIDDEN');
    expect((await t.request('GET', `/subscriptions/${s.id}/charges`, { key: viewer })).status).toBe(200);
    expect((await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: finance })).body.data.status).toBe('CANCELLED');
    const headers = { 'idempotency-key': 'one-key-two-callers' };
    const as = (key: string) => t.request('POST', '/subscriptions', { key, body: createBody(customerId), headers });
    const [a, b, again] = [await as(finance), await as(developer), await as(finance)];
    expect([a.status, b.status, again.status]).toEqual([201, 201, 201]);
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(again.body.data.id).toBe(a.body.data.id); // the same caller's replay
  });
});
