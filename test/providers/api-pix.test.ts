import { randomBytes, randomUUID } from 'node:crypto';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatCents, newEndToEndId } from '../../src/pix/index.js';
import { createApiPixClient } from '../../src/providers/api-pix/api-pix.client.js';
import { loadConfig } from '../../src/config.js';
import { createApiPixProvider } from '../../src/providers/api-pix/api-pix.provider.js';
import { requestProviderRefund } from '../../src/refunds/refund-settlement.service.js';
import { buildHttp, createRuntime } from '../../src/composition.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, check, events, expectError, validTaxId, type Merchant } from '../charges/support.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext(psp.env);
});
afterEach(() => psp.assertConformance());
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const WEBHOOK = '/providers/api-pix/webhook/pix';
const token = () => psp.env.API_PIX_WEBHOOK_TOKEN!;
const notify = (pix: unknown[], headers: Record<string, string> = { 'x-webhook-token': token() }) =>
  t.request('POST', WEBHOOK, { headers, body: { pix } });
/** A PIX the PSP received (so it confirms it), as its notification carries it. */
const received = (txid: string, valor: string, endToEndId = newEndToEndId('87654321', new Date())) =>
  psp.receive({ endToEndId, txid, valor, infoPagador: 'pedido 42' });

async function create(m: Merchant, body: Record<string, unknown>) {
  return t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', ...body } });
}

/** A merchant with a charge paid through the PSP webhook. */
async function paid(amount: number, fields: Record<string, unknown> = {}) {
  const m = await t.merchant(fields);
  const c = (await create(m, { amount })).body.data;
  const pix = received(c.txid, formatCents(amount));
  expect((await notify([pix])).status).toBe(200);
  return { m, c, pix };
}

const chargeRows = async (merchantId: string) =>
  (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [merchantId])).rows[0]!.n;

describe('charges: PUT /cob/{txid}', () => {
  it('sends the cob the API Pix way and answers the PSP\'s copy-and-paste code', async () => {
    const m = await t.merchant();
    const key = (await t.admin('GET', `/admin/merchants/${m.id}`)).body.data.pixKey.key;
    const res = await create(m, { amount: 1234, expiresIn: 3600, description: 'Pedido 42' });
    expect(res.status).toBe(201);
    const cob = psp.seen.filter((s) => s.method === 'PUT' && s.path.startsWith('/api/v2/cob/')).at(-1)!;
    const txid = cob.path.slice('/api/v2/cob/'.length);
    expect(txid).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(cob.authorization).toMatch(/^Bearer [0-9a-f]{32}$/);
    expect(Object.keys(cob.body).sort()).toEqual(['calendario', 'chave', 'solicitacaoPagador', 'valor']);
    expect(cob.body.valor).toEqual({ original: '12.34' });
    expect(cob.body.chave).toBe(key);
    expect(cob.body.solicitacaoPagador).toBe('Pedido 42');
    expect(cob.body.calendario.expiracao).toBeGreaterThanOrEqual(3599);
    expect(cob.body.calendario.expiracao).toBeLessThanOrEqual(3600);
    expect(res.body.data).toMatchObject({ txid, brCode: psp.cobs.get(txid).pixCopiaECola, status: 'PENDING', amount: 1234 });
  });

  it('formats cents without floats and leaves out an absent description', async () => {
    const m = await t.merchant();
    for (const [amount, valor] of [[100, '1.00'], [105, '1.05'], [12_345_678, '123456.78'], [100_000_000, '1000000.00']] as const) {
      expect((await create(m, { amount })).status).toBe(201);
      const cob = psp.seen.filter((s) => s.path.startsWith('/api/v2/cob/')).at(-1)!;
      expect(cob.body.valor.original).toBe(valor);
      expect(cob.body).not.toHaveProperty('solicitacaoPagador');
    }
  });

  it('one token serves many calls, concurrent ones included', async () => {
    const m = await t.merchant();
    expect((await create(m, { amount: 500 })).status).toBe(201);
    const before = psp.tokenRequests;
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(m, { amount: 500 })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(psp.tokenRequests).toBe(before);

    // A client of its own, starting with no token: 10 concurrent calls make one token request.
    const client = createApiPixClient(t.rt.config.apiPix!);
    const start = psp.tokenRequests;
    await Promise.all(Array.from({ length: 10 }, () => client.find('/gn/pix/enviados/id-envio/nothing', 'GET')));
    expect(psp.tokenRequests).toBe(start + 1);
  });

  it('a token the PSP revoked is replaced once and the call goes through', async () => {
    const m = await t.merchant();
    const before = psp.tokenRequests;
    psp.revokeTokens();
    expect((await create(m, { amount: 700 })).status).toBe(201);
    expect(psp.tokenRequests).toBe(before + 1);
  });

  it('a PSP 5xx is 502 PROVIDER_ERROR and nothing is written', async () => {
    const m = await t.merchant();
    psp.failNext('PUT /api/v2/cob/', 503);
    const res = await create(m, { amount: 1000 });
    expectError(res, 502, 'PROVIDER_ERROR', 'The PIX provider could not issue the charge; nothing was created');
    expect(res.raw).not.toContain(psp.env.API_PIX_CLIENT_SECRET!);
    expect(await chargeRows(m.id)).toBe(0);
    expect(await events(t, m.id)).toEqual([]);
  });

  it('a PSP that does not answer within API_PIX_TIMEOUT_MS is 502 too', async () => {
    const m = await t.merchant();
    psp.delayNext('PUT /api/v2/cob/', 3500);
    expectError(await create(m, { amount: 1000 }), 502, 'PROVIDER_ERROR');
    expect(await chargeRows(m.id)).toBe(0);
  });

  it('the fake PSP really requires the client certificate (mTLS)', async () => {
    if (!psp.files) return; // no openssl here: the suite runs over plain http (API_PIX_ALLOW_HTTP)
    const ca = readFileSync(psp.files.ca);
    const attempt = (withCert: boolean) => new Promise<number>((resolve, reject) => {
      const cert = withCert ? { cert: readFileSync(psp.files!.cert), key: readFileSync(psp.files!.key) } : {};
      https.request(psp.tokenUrl, { method: 'POST', ca, ...cert }, (res) => { res.resume(); resolve(res.statusCode!); })
        .on('error', reject).end();
    });
    await expect(attempt(false)).rejects.toThrow();
    expect(await attempt(true)).toBe(401); // through TLS; refused only for lack of client credentials
  });
});

describe('the PSP webhook: received PIX', () => {
  it('pays the charge and credits the merchant once, however often it is delivered', async () => {
    const m = await t.merchant({ chargeFeeFixed: 30 });
    const c = (await create(m, { amount: 2500 })).body.data;
    const pix = received(c.txid, '25.00');
    const first = await notify([pix]);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { received: 1 }, error: null, success: true });
    const charge = await check(t, m, c.id);
    expect(charge).toMatchObject({ status: 'PAID', end2endId: pix.endToEndId, paidAt: new Date(pix.horario).toISOString(), netAmount: 2470 });
    expect(await balance(t, m)).toMatchObject({ available: 2470 });

    const again = await Promise.all([notify([pix]), notify([pix]), notify([pix, pix])]);
    expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await balance(t, m)).toMatchObject({ available: 2470 });
    expect(await events(t, m.id, 'CHARGE_PAID')).toHaveLength(1);
    await t.assertLedger();
  });

  it('takes a batch, the token in the path, and the payer when the PSP sends one', async () => {
    const m = await t.merchant();
    const [a, b] = [(await create(m, { amount: 1000 })).body.data, (await create(m, { amount: 2000 })).body.data];
    const taxId = validTaxId();
    const withPayer = psp.receive({ txid: b.txid, valor: '20.00', pagador: { nome: 'Maria', cpf: taxId } });
    const res = await t.request('POST', `/providers/api-pix/webhook/${token()}/pix`, {
      body: { pix: [received(a.txid, '10.00'), { ...withPayer, pagador: undefined }] },
    });
    expect(res.status).toBe(200);
    expect((await check(t, m, a.id)).status).toBe('PAID');
    expect((await check(t, m, b.id)).status).toBe('PAID');
    const { rows } = await t.pool.query('SELECT payer_name, payer_tax_id FROM charges WHERE id = $1', [b.id]);
    expect(rows[0]).toEqual({ payer_name: 'Maria', payer_tax_id: taxId });
    expect(await balance(t, m)).toMatchObject({ available: 3000 });
    await t.assertLedger();
  });

  it('refuses a caller without the token before reading the body', async () => {
    const m = await t.merchant();
    const c = (await create(m, { amount: 1000 })).body.data;
    const pix = received(c.txid, '10.00');
    expectError(await notify([pix], {}), 401, 'UNAUTHORIZED', 'Invalid webhook token');
    expectError(await notify([pix], { 'x-webhook-token': token() + 'x' }), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', `/providers/api-pix/webhook/${'a'.repeat(64)}/pix`, { body: { pix: [pix] } }), 401, 'UNAUTHORIZED');
    expectError(await t.request('POST', WEBHOOK, { payload: '{not json', headers: { 'content-type': 'application/json' } }), 401, 'UNAUTHORIZED');
    // A merchant key or the admin token is no webhook token.
    expectError(await t.request('POST', WEBHOOK, { key: m.key, body: { pix: [pix] } }), 401, 'UNAUTHORIZED');
    expect((await check(t, m, c.id)).status).toBe('PENDING');
  });

  it('credits no charge with a PIX no charge takes (unknown txid, wrong amount, no txid): each is an unmatched payment', async () => {
    const m = await t.merchant();
    const c = (await create(m, { amount: 1000 })).body.data;
    const noTxid = psp.receive({ valor: '10.00' });
    const pix = [received('A'.repeat(32), '10.00'), received(c.txid, '10.01'), noTxid];
    const res = await notify(pix);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ received: 3 });
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    const { rows } = await t.pool.query('SELECT end2end_id FROM unmatched_payments WHERE end2end_id = ANY($1)', [pix.map((p) => p.endToEndId)]);
    expect(rows).toHaveLength(3);
    await t.assertLedger();
  });

  it('answers a PSP\'s registration check (a body without pix) and rejects malformed PIX', async () => {
    const check = await t.request('POST', WEBHOOK, { headers: { 'x-webhook-token': token() }, body: { evento: 'teste_webhook' } });
    expect(check.status).toBe(200);
    expect(check.body.data).toEqual({ received: 0 });
    expectError(await notify([{ ...received('A'.repeat(32), '10.00'), valor: '10.5' }]), 400, 'VALIDATION_ERROR', 'pix[0].valor: has an invalid format');
    expectError(await notify([{ ...received('A'.repeat(32), '10.00'), endToEndId: 'short' }]), 400, 'VALIDATION_ERROR', 'pix[0].endToEndId: has an invalid format');
  });

  it('never logs the token from the path', async () => {
    const logs = new PassThrough();
    let text = '';
    logs.on('data', (chunk: Buffer) => { text += chunk.toString(); });
    const app = await buildHttp(t.rt, logs);
    try {
      for (const tk of [token(), 'w'.repeat(40)]) {
        await app.inject({ method: 'POST', url: `/providers/api-pix/webhook/${tk}/pix`, payload: { pix: [] } });
      }
    } finally {
      await app.close();
    }
    expect(text).toContain('/providers/api-pix/webhook/[redacted]/pix');
    expect(text).not.toContain(token());
    expect(text).not.toContain('w'.repeat(40));
  });
});

describe('refunds: devolução', () => {
  async function refunded() {
    const { m, c, pix } = await paid(5000);
    const res = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key });
    expect(res.status).toBe(200);
    const refundId: string = res.body.data.refund.id;
    const key = `${pix.endToEndId}/${refundId.replace('_', '')}`;
    await eventually(() => psp.devolucoes.has(key));
    return { m, c, pix, refundId, devolucao: psp.devolucoes.get(key)! };
  }

  it('is requested at the PSP with a deterministic id, and DEVOLVIDO by webhook completes the refund', async () => {
    const { m, c, pix, refundId, devolucao } = await refunded();
    const put = psp.seen.find((s) => s.method === 'PUT' && s.path === `/api/v2/pix/${pix.endToEndId}/devolucao/${devolucao.id}`)!;
    expect(put.body).toEqual({ valor: '50.00' });
    expect(devolucao.id).toMatch(/^ref[A-Za-z0-9]{22}$/);
    expect((await check(t, m, c.id)).refund.status).toBe('PENDING');

    Object.assign(devolucao, { status: 'DEVOLVIDO', horario: { ...devolucao.horario, liquidacao: new Date().toISOString() } });
    for (let i = 0; i < 2; i++) expect((await notify([{ ...pix, devolucoes: [devolucao] }])).status).toBe(200);
    const charge = await check(t, m, c.id);
    expect(charge.status).toBe('REFUNDED');
    expect(charge.refund).toMatchObject({ id: refundId, status: 'COMPLETED' });
    expect(await events(t, m.id, 'REFUND_COMPLETED')).toHaveLength(1);
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    // Rerunning the request (the worker-start recovery) asks the PSP and never sends a second PUT.
    const puts = () => psp.seen.filter((s) => s.method === 'PUT' && s.path.includes(`/devolucao/${devolucao.id}`)).length;
    await requestProviderRefund(t.rt, refundId);
    expect(puts()).toBe(1);
    await t.assertLedger();
  });

  it('NAO_REALIZADO found by polling fails the refund with the PSP\'s motivo and reverses the debits', async () => {
    const { m, c, devolucao } = await refunded();
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    Object.assign(devolucao, { status: 'NAO_REALIZADO', motivo: 'Conta do pagador encerrada' });
    await eventually(async () => (await check(t, m, c.id)).refund.status === 'FAILED');
    const charge = await check(t, m, c.id);
    expect(charge.status).toBe('PAID');
    expect(charge.refund).toMatchObject({ status: 'FAILED', failedReason: 'Conta do pagador encerrada' });
    expect(await balance(t, m)).toMatchObject({ available: 5000 });
    expect(await events(t, m.id, 'REFUND_FAILED')).toHaveLength(1);
    await t.assertLedger();
  });

  it('DEVOLVIDO found by polling completes it', async () => {
    const { m, c, devolucao } = await refunded();
    devolucao.status = 'DEVOLVIDO';
    await eventually(async () => (await check(t, m, c.id)).refund.status === 'COMPLETED');
    await t.assertLedger();
  });

  it('a devolução the PSP refuses on its first, certain send fails the refund: REFUND_FAILED, every debit back, the charge PAID', async () => {
    const { m, c, pix } = await paid(5000);
    psp.failNext(`PUT /api/v2/pix/${pix.endToEndId}/devolucao/`, 422, 'Devolucao nao permitida');
    const res = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key });
    expect(res.body.data.refund.status).toBe('PENDING');
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    await eventually(async () => (await check(t, m, c.id)).refund.status !== 'PENDING');
    const charge = await check(t, m, c.id);
    expect(charge.status).toBe('PAID');
    expect(charge.refund).toMatchObject({ status: 'FAILED', failedReason: 'Devolução refused by the PSP: Devolucao nao permitida' });
    expect(await balance(t, m)).toMatchObject({ available: 5000 });
    expect(await events(t, m.id, 'REFUND_FAILED')).toHaveLength(1);
    expect([...psp.devolucoes.keys()].some((k) => k.startsWith(`${pix.endToEndId}/`))).toBe(false);
    // Refunded again, it is a new devolução.
    expect((await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key })).body.data.refund.status).toBe('PENDING');
    await eventually(() => [...psp.devolucoes.keys()].some((k) => k.startsWith(`${pix.endToEndId}/`)));
    await t.assertLedger();
  });

  it('ignores a devolução of another PIX or one it did not request (MED)', async () => {
    const { m, c, pix, devolucao } = await refunded();
    const other = newEndToEndId('87654321', new Date());
    await notify([{ ...pix, endToEndId: other, devolucoes: [{ ...devolucao, status: 'DEVOLVIDO' }] }]);
    await notify([{ ...pix, devolucoes: { ...devolucao, id: 'MED' + randomBytes(4).toString('hex'), status: 'NAO_REALIZADO' } }]);
    expect((await check(t, m, c.id)).refund.status).toBe('PENDING');
    devolucao.status = 'DEVOLVIDO'; // let the poller finish it
    await eventually(async () => (await check(t, m, c.id)).refund.status === 'COMPLETED');
    await t.assertLedger();
  });
});

describe('withdrawals: the PSP-specific payout endpoint', () => {
  it('sends the payout once and completes it when the PSP reports REALIZADO', async () => {
    const { m } = await paid(10_000, { withdrawalFeeFixed: 100 });
    const pixKey = randomUUID();
    const taxId = validTaxId('CNPJ');
    const res = await t.request('POST', '/withdrawals', {
      key: m.key, body: { amount: 6000, pixKey, pixKeyType: 'CHAVE_ALEATORIA', description: 'Saque semanal', taxId },
    });
    expect(res.status).toBe(201);
    const id: string = res.body.data.id;
    const envio = (await eventually(() => psp.envios.get(id.replace('_', ''))))!;
    expect(envio.body).toEqual({
      valor: '60.00', pagador: { chave: 'payouts@pixgate.example', infoPagador: 'Saque semanal' }, favorecido: { chave: pixKey, cnpj: taxId },
    });
    expect((await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data.status).toBe('PROCESSING');
    envio.status = 'REALIZADO';
    const done = await eventually(async () => {
      const w = (await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data;
      return w.status === 'COMPLETED' && w;
    });
    expect(done.end2endId).toBe(envio.endToEndId);
    expect(psp.seen.filter((s) => s.method === 'PUT' && s.path === `/api/v2/gn/pix/${envio.idEnvio}`)).toHaveLength(1);
    expect(await balance(t, m)).toMatchObject({ available: 10_000 - 6000 - 100 });
    await t.assertLedger();
  });

  it('a payout the PSP refuses outright fails the withdrawal and releases the funds', async () => {
    const { m } = await paid(10_000);
    const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 3000, pixKey: 'ninguem@nao-existe.test', pixKeyType: 'EMAIL' } });
    expect(res.status).toBe(201);
    const w = await eventually(async () => {
      const r = (await t.request('GET', `/withdrawals/${res.body.data.id}`, { key: m.key })).body.data;
      return r.status === 'FAILED' && r;
    });
    expect(w.failedReason).toBe('Payout refused by the PSP: Chave Pix nao encontrada');
    expect(await balance(t, m)).toMatchObject({ available: 10_000 });
    await t.assertLedger();
  });
});

describe('wiring', () => {
  it('the simulator controls are not there under api-pix', async () => {
    expectError(await t.admin('POST', '/admin/simulator/charges/chg_x/pay'), 404, 'NOT_FOUND', 'Route not found');
    expect(t.rt.provider.name).toBe('api-pix');
  });

  it('the payment page has no "Simular pagamento" button, and POST /pay/{id}/simulate does not exist (docs/contract/checkouts.md#payment-page)', async () => {
    const m = await t.merchant();
    const made = await t.request('POST', '/checkouts', { key: m.key, body: { items: [{ name: 'Pão', quantity: 1, unitPrice: 1000 }] } });
    expect(made.status, made.raw).toBe(201);
    const page = await t.app.inject({ method: 'GET', url: `/pay/${made.body.data.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(made.body.data.brCode.replace(/&/g, '&amp;'));
    expect(page.body).not.toContain('Simular pagamento');
    expect(page.body).not.toContain('/simulate');
    const sim = await t.app.inject({ method: 'POST', url: `/pay/${made.body.data.id}/simulate`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect([sim.statusCode, sim.json()]).toEqual([404, { error: 'NOT_FOUND', message: 'Route not found', success: false }]);
    expect((await check(t, m, made.body.data.chargeId)).status).toBe('PENDING');
  });

  it('the webhook route is not there under the simulator', async () => {
    const config = loadConfig({ ADMIN_TOKEN: 'adm-'.padEnd(40, 'x'), ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' }, { dataDir: t.rt.config.dataDir });
    const app = await buildHttp(createRuntime(config, t.pool));
    try {
      const res = await app.inject({ method: 'POST', url: WEBHOOK, headers: { 'x-webhook-token': token() }, payload: { pix: [] } });
      expect(res.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('API_PIX_RECEIVER_KEY puts one collecting key on every cob', async () => {
    const config = { ...t.rt.config, apiPix: { ...t.rt.config.apiPix!, receiverKey: 'recebimentos@pixgate.example' } };
    const provider = createApiPixProvider({ ...t.rt, config });
    const issued = await provider.createCharge({
      chargeId: 'chg_x', amount: 990, expiresIn: 60, description: null,
      merchant: { pixKey: randomUUID(), name: 'Loja', city: 'SAO PAULO' },
    });
    expect(psp.cobs.get(issued.txid)).toMatchObject({ chave: 'recebimentos@pixgate.example', valor: { original: '9.90' } });
  });
});
