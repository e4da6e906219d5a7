import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, saoPauloDate } from '../../src/calendar/index.js';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '../support/context.js';
import { problemsOf } from './support/answer.js';
import { cursorsOf, merchantWithEverything, type MerchantObjects } from './support/fixtures.js';
import { generateCases, type Case, type FuzzContext } from './support/generate.js';
import { LOGO_PNG } from '../checkouts/support.js';
import { getAt, operationsOf, type Operation } from './support/openapi-ops.js';
import { SEED } from './support/prng.js';
import { snapshot } from './support/snapshot.js';

/**
 * Hostile input (the "Proof" issue, part 3): every operation of the OpenAPI document gets requests built
 * from its schemas to be refused — wrong types, bounds ±1, huge and hostile strings, floats for cents,
 * duplicate keys, pollution keys, malformed JSON, wrong content types and headers. Every answer must be
 * below 500 and a valid envelope, and the batch must write nothing at all.
 */
const RANDOM_PER_FIELD = 24;
const CONCURRENCY = 8;
/**
 * What the public routes answer instead of the envelope, by contract: the payment and link pages are HTML and so
 * are their errors (docs/contract/checkouts.md#payment-page: "a 404 page"; docs/contract/checkouts.md#link-page: the
 * field errors beside the inputs), the logo is its image (an unknown one the 404 page, docs/contract/checkouts.md#branding),
 * the live status is an event stream (its errors are envelopes), and the forms answer a 303 to a page.
 */
const NOT_JSON: Record<string, Pick<Operation, 'file' | 'pageErrors' | 'redirects'>> = {
  'GET /pay/{id}': { file: 'text/html', pageErrors: true },
  'GET /l/{id}': { file: 'text/html', pageErrors: true },
  'POST /l/{id}': { pageErrors: true, redirects: true },
  'POST /pay/{id}/simulate': { pageErrors: true, redirects: true },
  'GET /pay/logos/{id}': { file: 'image/png', pageErrors: true },
  'GET /pay/{id}/events': { file: 'text/event-stream' },
};

let t: TestContext;
let ops: Operation[];
let a: MerchantObjects;
let ctx: FuzzContext;

beforeAll(async () => {
  t = await createTestContext({ SIM_REFUND_DELAY_MS: '3600000', SIM_PAYOUT_DELAY_MS: '3600000' }, { worker: false });
  ops = operationsOf((await t.request('GET', '/openapi.json')).body).map((o) => ({ ...o, ...NOT_JSON[o.name] }));
  a = await merchantWithEverything(t, 'http://127.0.0.1:9/a');
  const b = await merchantWithEverything(t, 'http://127.0.0.1:9/b');
  await t.request('POST', '/webhooks', { key: b.merchant.key, body: { url: 'http://127.0.0.1:9/b2', events: ['CHARGE_PAID'] } });
  await t.request('POST', '/customers', { key: b.merchant.key, body: { email: 'second@example.com' } });
  const cursors = Object.values(await cursorsOf(t, b.merchant.key));
  const ids = Object.values(a).filter((v): v is string => typeof v === 'string');
  const m = a.merchant;
  // Session-only routes (team, API keys, account) run as an OWNER; PATCH lands on a teammate of its own.
  const owner = await t.user(m.id);
  const teammate = await t.user(m.id, 'VIEWER');
  // An event that went to A's endpoint: the one redeliver accepts.
  // An unmatched payment of the simulated network (a PIX no charge has the txid of), OPEN: the one refund accepts.
  const received = await t.admin('POST', '/admin/simulator/pix', { amount: 1234 });
  if (received.status !== 200) throw new Error(`simulator pix: ${received.status} ${received.raw}`);
  const unmatchedId: string = received.body.data.unmatchedPayment.id;
  const { rows: [sent] } = await t.pool.query<{ event_id: string }>('SELECT event_id FROM event_endpoints WHERE endpoint_id = $1 LIMIT 1', [a.endpointId]);
  ctx = {
    key: m.key,
    session: owner.token,
    adminToken: ADMIN_TOKEN,
    ids: [...ids, m.id, m.keyId, unmatchedId],
    cursors,
    bases: {
      'POST /customers': { email: 'fuzz@example.com', name: 'Fuzz', taxId: '52998224725', phone: '+5511999999999' },
      // Every field, so that each nested one is mutated inside a valid parent: the due-date ones beside the split and
      // expiresIn of an immediate charge (schema-valid; the terms are checked before that conflict is refused).
      'POST /transparents/create': {
        method: 'PIX', amount: 1000, description: 'fuzz', customerId: a.customerId, expiresIn: 3600,
        split: [{ merchantId: b.merchant.id, mode: 'FIXED', value: 100 }],
        dueDate: addDays(saoPauloDate(new Date()), 30), daysAfterDue: 10, rebate: { mode: 'FIXED', value: 10 }, fine: { mode: 'PERCENT', value: 200 },
        interest: { mode: 'PERCENT_PER_MONTH', value: 100 }, discount: { mode: 'FIXED_UNTIL', tiers: [{ date: addDays(saoPauloDate(new Date()), 20), value: 20 }] },
      },
      'POST /withdrawals': { amount: 1000, pixKey: 'payee@example.com', pixKeyType: 'EMAIL', description: 'fuzz', taxId: '529.982.247-25', clientCallbackUrl: 'http://127.0.0.1:9/cb' },
      'POST /webhooks': { url: 'http://127.0.0.1:9/fuzz', events: ['CHARGE_PAID'] },
      'POST /admin/merchants': {
        userName: 'fuzz', email: 'fuzz@example.com', kyc: { status: 'APPROVED', tradeName: 'Fuzz', legalName: 'Fuzz Ltda', fullName: 'Fuzz Silva', taxId: '11222333000181' },
        pixKey: { type: 'EMAIL', key: 'fuzz@example.com' }, city: 'SAO PAULO', minTicket: 100, maxTicket: 100_000, maxWithdrawal: 100_000,
        withdrawalsEnabled: true, chargeFeeFixed: 10, chargeFeeBps: 100, withdrawalFeeFixed: 5,
      },
      'PATCH /admin/merchants/{id}': { userName: 'fuzz', suspended: false, kyc: { status: 'APPROVED', tradeName: 'Fuzz' }, pixKey: { type: 'EMAIL', key: 'fuzz@example.com' }, minTicket: 100 },
      'POST /admin/simulator/charges/{id}/pay': { payer: { name: 'Payer', taxId: '52998224725' } },
      // `date` is a due-date charge's (docs/contract/due-date-charges.md#simulator); the pending charge is immediate.
      'POST /transparents/simulate-payment': {},
      'POST /admin/simulator/disputes/{id}/resolve': { outcome: 'REJECTED' },
      'POST /admin/disputes/{id}/resolve': { outcome: 'REJECTED' },
      'POST /admin/simulator/refunds/{id}/fail': { reason: 'fuzz' },
      'POST /admin/simulator/withdrawals/{id}/fail': { reason: 'fuzz' },
      'POST /auth/login': { email: 'fuzz-login@example.com', password: 'fuzz password 1', totp: '123456' },
      'POST /auth/invitations/{token}/accept': { password: 'fuzz password 1', name: 'Fuzz' },
      'POST /me/users': { email: 'fuzz-user@example.com', name: 'Fuzz', role: 'VIEWER' },
      'PATCH /me/users/{id}': { role: 'FINANCE' },
      'POST /me/api-keys': { name: 'fuzz' },
      'POST /me/password': { currentPassword: 'not the password', newPassword: 'fuzz new password 1' },
      'POST /me/totp/confirm': { code: '123456' },
      'DELETE /me/totp': { code: '123456' },
      'POST /admin/merchants/{id}/users': { email: 'fuzz-admin@example.com', name: 'Fuzz', role: 'OWNER' },
      'POST /webhooks/{id}/redeliver': { eventId: sent!.event_id },
      'POST /webhooks/{id}/recover': { since: '2026-01-01T00:00:00.000Z' },
      'POST /webhooks/{id}/rotate-secret': { expiresInSeconds: 60 },
      // A txid no charge has: accepted, it becomes an unmatched payment (docs/contract/psp.md#unmatched-payments).
      'POST /admin/simulator/pix': { amount: 1000, txid: 'fuzz0unknown0txid', payer: { name: 'Payer', taxId: '52998224725' } },
      'POST /checkouts': {
        items: [{ name: 'Fuzz', quantity: 2, unitPrice: 1000 }], customerId: a.customerId, description: 'fuzz', externalId: 'fuzz-1',
        metadata: { order: 'fuzz' }, returnUrl: 'http://127.0.0.1:9/back', completionUrl: 'http://127.0.0.1:9/done', expiresIn: 3600,
        split: [{ merchantId: b.merchant.id, mode: 'FIXED', value: 100 }],
      },
      'POST /payment-links': {
        // A range (not a cart): its min and max are fields of the base, so a variant of one keeps the other.
        name: 'Fuzz', amountRange: { min: 500, max: 50_000 }, description: 'fuzz', customerFields: ['name', 'email'],
        maxPayments: 10, activeUntil: '2030-01-01T00:00:00.000Z', completionUrl: 'http://127.0.0.1:9/done', checkoutExpiresIn: 3600,
        split: [{ merchantId: b.merchant.id, mode: 'FIXED', value: 100 }],
      },
      'PATCH /payment-links/{id}': { active: true },
      'PUT /me/branding': { displayName: 'Fuzz', primaryColor: '#8a3b12', logo: LOGO_PNG },
      // The dashboard's previews take the bodies of the create and the PUT (docs/contract/checkouts.md#previews); they write nothing.
      'POST /payment-link-preview': {
        name: 'Fuzz', amountRange: { min: 500, max: 50_000 }, description: 'fuzz', customerFields: ['name', 'email'],
        maxPayments: 10, activeUntil: '2030-01-01T00:00:00.000Z', completionUrl: 'http://127.0.0.1:9/done', checkoutExpiresIn: 3600,
      },
      'POST /me/branding/preview': { displayName: 'Fuzz', primaryColor: '#8a3b12', logo: LOGO_PNG },
      // The link asks for an amount and every customer field (fixtures.ts).
      'POST /l/{id}/checkouts': { amount: 1000, name: 'Payer', email: 'payer@example.com', taxId: '52998224725', phone: '+55 11 99999-9999' },
      'POST /subscriptions': {
        customerId: a.customerId, amount: 1000, frequency: 'MONTHLY', startDate: '2030-01-15', endDate: '2031-01-15', contract: 'fuzz',
        // PUSH: every field of payerAccount is in the base, so a variant of one keeps the others.
        description: 'fuzz', retryPolicy: 'THREE_IN_7_DAYS', journey: 'PUSH', payerAccount: { ispb: '12345678', branch: '1', account: '123' },
        requestExpiresIn: 3600,
      },
      'POST /subscriptions/{id}/charges': { amount: 1500, dueDate: a.variableDueDate },
      'POST /admin/simulator/charges/{id}/debit': { outcome: 'INSUFFICIENT_FUNDS' },
    },
    realParams: {
      'GET /customers/{id}': { id: a.customerId },
      'DELETE /customers/{id}': { id: a.customerId },
      'GET /transparents/check': { id: a.pendingChargeId },
      'POST /transparents/refund': { id: a.paidChargeId },
      'GET /withdrawals/{id}': { id: a.withdrawalId },
      'GET /withdrawals/quote': { amount: '1000' },
      'GET /webhooks/{id}': { id: a.endpointId },
      'DELETE /webhooks/{id}': { id: a.endpointId },
      'GET /webhooks/{id}/deliveries': { id: a.endpointId },
      'POST /webhooks/{id}/test': { id: a.endpointId },
      'POST /webhooks/{id}/redeliver': { id: a.endpointId },
      'POST /webhooks/{id}/recover': { id: a.endpointId },
      'POST /webhooks/{id}/rotate-secret': { id: a.endpointId },
      'GET /events/{id}': { id: sent!.event_id },
      'GET /admin/merchants/{id}': { id: m.id },
      'PATCH /admin/merchants/{id}': { id: m.id },
      'POST /admin/merchants/{id}/api-keys': { id: m.id },
      'DELETE /admin/api-keys/{id}': { id: m.keyId },
      'POST /admin/simulator/charges/{id}/pay': { id: a.pendingChargeId },
      'POST /admin/simulator/charges/{id}/dispute': { id: a.paidChargeId },
      'POST /admin/simulator/disputes/{id}/resolve': { id: a.disputeId },
      'POST /admin/charges/{id}/disputes': { id: a.paidChargeId },
      'POST /admin/disputes/{id}/resolve': { id: a.disputeId },
      'POST /admin/simulator/refunds/{id}/complete': { id: a.refundId },
      'POST /admin/simulator/refunds/{id}/fail': { id: a.refundId },
      'POST /admin/simulator/withdrawals/{id}/complete': { id: a.withdrawalId },
      'POST /admin/simulator/withdrawals/{id}/fail': { id: a.withdrawalId },
      'POST /auth/invitations/{token}/accept': { token: 'not-an-invitation' },
      'PATCH /me/users/{id}': { id: teammate.id },
      'DELETE /me/users/{id}': { id: teammate.id },
      'DELETE /me/api-keys/{id}': { id: 'key_unknown' },
      'POST /admin/merchants/{id}/users': { id: m.id },
      'POST /transparents/simulate-payment': { id: a.pendingChargeId },
      'POST /admin/unmatched-payments/{id}/refund': { id: unmatchedId },
      'GET /checkouts/{id}': { id: a.checkoutId },
      'POST /checkouts/{id}/refund': { id: a.paidCheckoutId },
      'GET /payment-links/{id}': { id: a.linkId },
      'PATCH /payment-links/{id}': { id: a.linkId },
      'GET /payment-links/{id}/qr-code': { id: a.linkId },
      'GET /pay/logos/{id}': { id: a.logoId },
      'GET /pay/{id}': { id: a.checkoutId },
      'GET /pay/{id}/status': { id: a.checkoutId },
      // PENDING, so its stream stays open: send() reads the first event and hangs up.
      'GET /pay/{id}/events': { id: a.checkoutId },
      // PAID: the button pays nothing more (a PENDING checkout would be paid by the first request its handler takes).
      'POST /pay/{id}/simulate': { id: a.paidCheckoutId },
      // An empty form is refused by this link (it asks for an amount and the customer fields): nothing is made.
      'GET /l/{id}': { id: a.linkId },
      'POST /l/{id}': { id: a.linkId },
      'POST /l/{id}/checkouts': { id: a.linkId },
      'GET /subscriptions/{id}': { id: a.subscriptionId },
      'GET /subscriptions/{id}/charges': { id: a.activeSubscriptionId },
      'POST /subscriptions/{id}/charges': { id: a.variableSubscriptionId },
      'POST /subscriptions/{id}/cancel': { id: a.subscriptionId },
      'POST /admin/simulator/subscriptions/{id}/authorize': { id: a.subscriptionId },
      'POST /admin/simulator/subscriptions/{id}/reject': { id: a.subscriptionId },
      'POST /admin/simulator/subscriptions/{id}/cancel': { id: a.activeSubscriptionId },
      'POST /admin/simulator/subscriptions/{id}/next-cycle': { id: a.activeSubscriptionId },
      'POST /admin/simulator/charges/{id}/debit': { id: a.cycleChargeId },
    },
  };
});
afterAll(async () => { await t?.close(); });

let cases: ReturnType<typeof generateCases> | undefined;
const generated = () => (cases ??= generateCases(ops, ctx, SEED, RANDOM_PER_FIELD));

async function send(c: Case) {
  if (c.file === 'text/event-stream') return sendToStream(c);
  const res = await t.app.inject({ method: c.method as never, url: c.url, headers: c.headers, payload: c.payload });
  return { status: res.statusCode, raw: res.body, contentType: String(res.headers['content-type'] ?? '') };
}

/** A live status stream stays open while its checkout is PENDING: read up to its first event, then hang up. */
async function sendToStream(c: Case) {
  const res = await t.app.inject({ method: c.method as never, url: c.url, headers: c.headers, payload: c.payload, payloadAsStream: true });
  const contentType = String(res.headers['content-type'] ?? '');
  let raw = '';
  for await (const chunk of res.stream()) {
    raw += String(chunk);
    if (contentType.startsWith('text/event-stream') && /^data: .*\n\n/m.test(raw)) break; // leaving the loop destroys the stream
  }
  return { status: res.statusCode, raw, contentType };
}

/** Sends every case (a few at a time) and returns the problems found, worst first. */
async function run(cases: Case[], listOps: Set<string>, check = problemsOf) {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const found = check(c, await send(c), listOps.has(c.op) && c.method === 'GET');
      if (found.length) problems.push(`${c.op} [${c.kind}] ${c.detail} → ${found.join('; ')}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return problems;
}

const report = (problems: string[]) => {
  if (process.env.HOSTILE_REPORT) writeFileSync(process.env.HOSTILE_REPORT, problems.join('\n'));
  return summary(problems);
};
const summary = (problems: string[]) =>
  `${problems.length} problems (seed ${SEED}; replay with HOSTILE_SEED=${SEED}):\n${problems.slice(0, 40).join('\n')}`;

describe('hostile input from the OpenAPI schemas', () => {
  it('covers every operation: merchant, admin and simulator', () => {
    const names = ops.map((o) => o.name);
    for (const n of ['POST /transparents/create', 'GET /webhooks/{id}/deliveries', 'PATCH /admin/merchants/{id}', 'POST /admin/simulator/withdrawals/{id}/fail']) {
      expect(names).toContain(n);
    }
    expect(ops.length).toBeGreaterThanOrEqual(30);
  });

  it('has a valid base body and real path/required-query values for every operation (a new route without a fixture fails here)', () => {
    const missing: string[] = [];
    for (const o of ops) {
      if (o.body && ctx.bases[o.name] === undefined) missing.push(`${o.name}: base body`);
      for (const p of o.params) {
        if ((p.in === 'path' || p.required) && ctx.realParams[o.name]?.[p.name] === undefined) missing.push(`${o.name}: ${p.in} ${p.name}`);
      }
    }
    for (const name of [...Object.keys(ctx.bases), ...Object.keys(ctx.realParams), ...Object.keys(NOT_JSON)]) {
      if (!ops.some((o) => o.name === name)) missing.push(`${name}: a fixture for an operation the document does not have`);
    }
    expect(missing).toEqual([]);
  });

  it('refuses ≥ 10,000 invalid requests with envelopes and no 5xx, and writes nothing', async () => {
    const { batch } = generated();
    const listOps = new Set(ops.filter((o) => o.list).map((o) => o.name));
    const perOp = new Map<string, number>();
    for (const c of batch) perOp.set(c.op, (perOp.get(c.op) ?? 0) + 1);
    for (const o of ops) expect(perOp.get(o.name) ?? 0, o.name).toBeGreaterThan(15);

    const before = await snapshot(t.pool);
    const started = performance.now();
    const problems = await run(batch, listOps);
    console.log(`hostile batch: ${batch.length} requests in ${Math.round(performance.now() - started)} ms (seed ${SEED})`);
    const after = await snapshot(t.pool);

    expect(batch.length).toBeGreaterThanOrEqual(10_000);
    expect(problems, report(problems)).toEqual([]);
    expect(after).toEqual(before);
    await t.assertLedger();
  }, 300_000);
});

describe('schema-valid hostile values (run apart: they may be accepted and write)', () => {
  it('unicode, injection text, integer-valued floats, duplicate keys, pollution keys: no 5xx, envelopes, text stored as sent', async () => {
    // Accepted PATCHes land on a merchant of their own, so merchant A keeps working for the tests below.
    const target = await t.merchant();
    const accepted = generated().accepted.map((c) =>
      c.op === 'PATCH /admin/merchants/{id}' ? { ...c, url: c.url.replace(a.merchant.id, target.id) } : c);
    const echoed = (c: Case, a: { status: number; raw: string }, list: boolean) => {
      const problems = problemsOf(c, a, list);
      // A page or a file answers no JSON to compare (the dashboard's previews draw the body and store nothing).
      if (a.status < 300 && c.path && !c.file) {
        const sent = getAt(c.body, c.path);
        const got = getAt(JSON.parse(a.raw).data, c.path);
        if (typeof sent === 'string' && got !== undefined && got !== sent) problems.push(`stored ${JSON.stringify(got)?.slice(0, 80)}, sent ${JSON.stringify(sent).slice(0, 80)}`);
      }
      return problems;
    };
    const started = performance.now();
    const problems = await run(accepted, new Set(), echoed);
    console.log(`schema-valid hostile values: ${accepted.length} requests in ${Math.round(performance.now() - started)} ms`);
    expect(accepted.length).toBeGreaterThan(1000);
    expect(problems, report(problems)).toEqual([]);
    // `__proto__` and `constructor.prototype` keys never reached a prototype.
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    await t.assertLedger();
  }, 300_000);

  it('integer-valued floats are the integer (docs/contract/http.md#numbers): 1000.0, 1E3 and 1e3 cents are 1000; -0 is 0', async () => {
    for (const token of ['1000.0', '1E3', '1e3', '1000.000']) {
      const res = await t.request('POST', '/transparents/create', { key: a.merchant.key, payload: `{"method":"PIX","amount":${token}}`, headers: { 'content-type': 'application/json' } });
      expect(res.status, token).toBe(201);
      expect(res.body.data.amount).toBe(1000);
    }
    const m = await t.merchant({ chargeFeeFixed: 50 });
    const zero = await t.app.inject({ method: 'PATCH', url: `/admin/merchants/${m.id}`, payload: '{"chargeFeeFixed":-0}', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } });
    expect(zero.statusCode).toBe(200);
    expect(zero.json().data.chargeFeeFixed).toBe(0);
  });
});

describe('regressions found by the fuzzer', () => {
  const TEXT = 'must not contain NUL characters or unpaired surrogates';
  const json = { 'content-type': 'application/json' };
  const as = (method: string, url: string, payload?: string, headers: Record<string, string> = {}) =>
    t.request(method, url, { key: a.merchant.key, payload, headers: payload === undefined ? headers : { ...json, ...headers } });
  const error = (res: { status: number; body: any }) => ({ status: res.status, ...res.body });
  const invalid = (message: string) => ({ status: 400, error: 'VALIDATION_ERROR', message, success: false });

  it('NUL and unpaired surrogates in body, query and path strings are a 400 naming the field, not a 500', async () => {
    const before = await snapshot(t.pool);
    expect(error(await as('POST', '/transparents/create', '{"method":"PIX","amount":1000,"description":"a\\u0000b"}'))).toEqual(invalid(`description: ${TEXT}`));
    expect(error(await as('POST', '/customers', '{"email":"x@example.com","name":"a\\ud800"}'))).toEqual(invalid(`name: ${TEXT}`));
    expect(error(await as('POST', '/transparents/create', `{"method":"PIX","amount":1000,"split":[{"merchantId":"a\\udfff","mode":"FIXED","value":1}]}`)))
      .toEqual(invalid(`split[0].merchantId: ${TEXT}`));
    expect(error(await as('GET', '/customers?email=a%00b'))).toEqual(invalid(`email: ${TEXT}`));
    expect(error(await as('GET', '/transparents/check?id=%00'))).toEqual(invalid(`id: ${TEXT}`));
    expect(error(await as('GET', '/customers/a%00b'))).toEqual(invalid(`id: ${TEXT}`));
    expect(error(await t.admin('GET', '/admin/merchants/%00'))).toEqual(invalid(`id: ${TEXT}`));
    expect(await snapshot(t.pool)).toEqual(before);
    // A well-formed pair (an emoji) is ordinary text.
    const ok = await as('POST', '/transparents/create', '{"method":"PIX","amount":1000,"description":"\\ud83d\\ude00 ok"}');
    expect(ok.status).toBe(201);
    expect(ok.body.data.description).toBe('😀 ok');
  });

  it('a PATCH putting minTicket above maxTicket is a 400 (the table\'s CHECK made it a 500), merchant unchanged', async () => {
    const m = await t.merchant({ minTicket: 100, maxTicket: 5_000 });
    const before = (await t.admin('GET', `/admin/merchants/${m.id}`)).body.data;
    expect(error(await t.admin('PATCH', `/admin/merchants/${m.id}`, { minTicket: 5_001 }))).toEqual(invalid('maxTicket: must be >= minTicket (5001)'));
    expect(error(await t.admin('PATCH', `/admin/merchants/${m.id}`, { maxTicket: 0 }))).toEqual(invalid('maxTicket: must be >= minTicket (100)'));
    expect(error(await t.admin('PATCH', `/admin/merchants/${m.id}`, { minTicket: 10, maxTicket: 9 }))).toEqual(invalid('maxTicket: must be >= minTicket (10)'));
    expect((await t.admin('GET', `/admin/merchants/${m.id}`)).body.data).toEqual(before);
    const both = await t.admin('PATCH', `/admin/merchants/${m.id}`, { minTicket: 6_000, maxTicket: 7_000 });
    expect([both.status, both.body.data.minTicket, both.body.data.maxTicket]).toEqual([200, 6_000, 7_000]);
  });

  it('a name or city with nothing a BR Code can show is refused (it made every charge a 502)', async () => {
    const m = await t.merchant();
    const reason = 'must contain Latin letters, digits or punctuation (shown in BR Codes)';
    expect(error(await t.admin('PATCH', `/admin/merchants/${m.id}`, { city: '😀🇧🇷' }))).toEqual(invalid(`city: ${reason}`));
    expect(error(await t.admin('PATCH', `/admin/merchants/${m.id}`, { kyc: { tradeName: 'مرحبا' } }))).toEqual(invalid(`kyc.tradeName: ${reason}`));
    expect(error(await t.admin('POST', '/admin/merchants', { userName: '\u200b', email: 'x@example.com' }))).toEqual(invalid(`userName: ${reason}`));
    expect(error(await t.admin('POST', '/admin/merchants', { userName: 'ok', email: 'x@example.com', kyc: { legalName: ' ' } }))).toEqual(invalid(`kyc.legalName: ${reason}`));
    // Accents are transliterated, so Brazilian names and cities are fine.
    expect((await t.admin('PATCH', `/admin/merchants/${m.id}`, { city: 'São João del-Rei', kyc: { tradeName: 'Açaí & Cia' } })).status).toBe(200);
    expect((await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 } })).status).toBe(201);
  });

  it('a URL that does not decode, or an over-long path parameter, answers the error envelope', async () => {
    for (const url of ['/customers/%E0%A4%A', '/customers/%ZZ', '/webhooks/%ED%A0%80', '/admin/merchants/%']) {
      const res = url.startsWith('/admin') ? await t.admin('GET', url) : await as('GET', url);
      expect(error(res), url).toEqual(invalid('path: malformed percent-encoding'));
    }
    expect(error(await as('GET', `/withdrawals/${'a'.repeat(101)}`))).toEqual(invalid('path: a parameter is too long'));
    expect(error(await t.admin('POST', `/admin/simulator/charges/${'a'.repeat(500)}/pay`))).toEqual(invalid('path: a parameter is too long'));
  });

  it('a body nested deeper than 32 levels is refused before parsing (it overflowed the idempotency hash into a 500)', async () => {
    const before = await snapshot(t.pool);
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const res = await as('POST', '/transparents/create', `{"method":"PIX","amount":1000,"extra":${deep(100_000)}}`, { 'idempotency-key': 'deep-1' });
    expect(error(res)).toEqual(invalid('body: nested deeper than 32 levels'));
    expect(error(await as('POST', '/customers', `{"email":"x@example.com","x":${deep(40)}}`))).toEqual(invalid('body: nested deeper than 32 levels'));
    expect(await snapshot(t.pool)).toEqual(before);
    // Brackets inside strings are text, and 32 levels are still fine.
    const fine = await as('POST', '/transparents/create', `{"method":"PIX","amount":1000,"description":"${'['.repeat(100)}","x":${deep(31)}}`, { 'idempotency-key': 'deep-2' });
    expect(fine.status).toBe(201);
  });
});

