// docs/contract/subscriptions.md#recurrence-payload: with the simulator, a QR journey's template 80 points at Pixgate
// itself, which answers BACEN's RecPayload as a JWS (PS256) whose key is published at `jku` — verified here with jose
// against the published key set, and the payload checked against BACEN's OpenAPI 2.9.0 schema.
import { PassThrough } from 'node:stream';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHttp, createRuntime } from '../../src/composition.js';
import { parseBrCode } from '../../src/pix/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import type { Merchant } from '../charges/support.js';
import { apiPixConformance } from '../providers/fake-psp-openapi.js';
import { authorize, payer, sim, subscribe } from './support.js';

const PUBLIC_URL = 'https://pix.loja.example/pg';
let t: TestContext;
let m: Merchant;
let customerId: string;
const taxId = '52998224725';

beforeAll(async () => {
  t = await createTestContext({ PUBLIC_URL });
  m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Loja Teste', taxId: '11222333000181' } });
  customerId = await payer(t, m, taxId);
});
afterAll(async () => { await t?.close(); });

/** The recurrence location of a code: `<host><path>/pix/v2/rec/<token>`, as the payer's bank reads it from 80-25. */
function locationOf(brCode: string): string {
  const template = parseBrCode(brCode).fields.find((f) => f.id === '80')!.value;
  const m = /^0014br\.gov\.bcb\.pix25(\d\d)(.*)$/.exec(template)!;
  expect(m[2]).toHaveLength(Number(m[1]));
  return m[2]!;
}

/** What a payer's bank fetches: https://<location>, here on the app under test. */
async function fetchLocation(location: string) {
  expect(location.startsWith('pix.loja.example/pg/')).toBe(true);
  const res = await t.app.inject({ method: 'GET', url: location.slice('pix.loja.example/pg'.length) });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: res.body };
}

async function keySet() {
  const res = await t.app.inject({ method: 'GET', url: '/pix/v2/jwks' });
  expect(res.statusCode).toBe(200);
  return res.json() as { keys: Array<Record<string, unknown>> };
}

describe('the recurrence payload', () => {
  it('is BACEN\'s RecPayload as a JWS (PS256) that verifies against the key set at jku', async () => {
    const s = await subscribe(t, m, customerId, { endDate: '2031-01-01', retryPolicy: 'THREE_IN_7_DAYS', description: 'Streaming' });
    const location = locationOf(s.brCode);
    expect(location).toMatch(/^pix\.loja\.example\/pg\/pix\/v2\/rec\/[A-Za-z0-9]{32}$/);
    const res = await fetchLocation(location);
    expect([res.status, res.type]).toEqual([200, 'application/jose']);
    const header = decodeProtectedHeader(res.body);
    expect(header).toMatchObject({ alg: 'PS256', jku: `${PUBLIC_URL}/pix/v2/jwks` });
    const { keys } = await keySet();
    expect(keys.map((k) => k.kid)).toEqual([header.kid]);
    expect(keys[0]).not.toHaveProperty('d'); // the public half only
    const { payload } = await compactVerify(res.body, createLocalJWKSet({ keys: keys as never }));
    const rec = JSON.parse(new TextDecoder().decode(payload));
    expect(rec).toEqual({
      idRec: expect.stringMatching(/^RR99999999\d{8}[A-Za-z0-9]{11}$/),
      vinculo: { contrato: 'Plano mensal 123', objeto: 'Streaming', devedor: { cpf: taxId, nome: 'Maria Pagadora' } },
      calendario: { dataInicial: s.startDate, dataFinal: '2031-01-01', periodicidade: 'MENSAL' },
      valor: { valorRec: '29.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
      recebedor: { cnpj: '11222333000181', nome: 'Loja Teste', ispbParticipante: '99999999' },
      atualizacao: [{ status: 'CRIADA', data: s.createdAt }],
    });
    const conformance = await apiPixConformance();
    expect(conformance.checkSchema('RecPayload', rec)).toEqual([]);
    // Authorized, it still answers, its history with APROVADA; a variable amount shows the least one.
    const active = await authorize(t, s.id);
    const again = JSON.parse(new TextDecoder().decode((await compactVerify((await fetchLocation(location)).body, createLocalJWKSet({ keys: keys as never }))).payload));
    expect(again.atualizacao).toEqual([{ status: 'CRIADA', data: s.createdAt }, { status: 'APROVADA', data: active.authorizedAt }]);
    const variable = await subscribe(t, m, customerId, { amount: undefined, minAmount: 1_000, frequency: 'WEEKLY' });
    const varRec = JSON.parse(new TextDecoder().decode((await compactVerify((await fetchLocation(locationOf(variable.brCode))).body, createLocalJWKSet({ keys: keys as never }))).payload));
    expect([varRec.valor, varRec.politicaRetentativa, varRec.calendario.periodicidade, varRec.idRec.slice(0, 2)]).toEqual([{ valorMinimoRecebedor: '10.00' }, 'NAO_PERMITE', 'SEMANAL', 'RN']);
    expect(conformance.checkSchema('RecPayload', varRec)).toEqual([]);
  });

  it('journey 3\'s composite code points at the same kind of location', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 1_990 } });
    const res = await fetchLocation(locationOf(s.brCode));
    expect(res.status).toBe(200);
  });

  it('a recurrence no longer open answers RecPayloadOperacaoInvalida; a made-up or altered token RecPayloadNaoEncontrado', async () => {
    const s = await subscribe(t, m, customerId);
    const location = locationOf(s.brCode);
    await sim(t, `/subscriptions/${s.id}/reject`);
    const gone = await fetchLocation(location);
    expect([gone.status, gone.type.split(';')[0], JSON.parse(gone.body).type]).toEqual([400, 'application/problem+json', 'https://pix.bcb.gov.br/api/v2/error/RecPayloadOperacaoInvalida']);
    const token = location.split('/').pop()!;
    const altered = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    for (const bad of [altered, 'a'.repeat(32), 'x', `${token}0`]) {
      const res = await t.app.inject({ method: 'GET', url: `/pix/v2/rec/${bad}` });
      expect([res.statusCode, res.json().type], bad).toEqual([404, 'https://pix.bcb.gov.br/api/v2/error/RecPayloadNaoEncontrado']);
    }
  });

  it('a location\'s token is a capability: never written to the logs', async () => {
    const s = await subscribe(t, m, customerId);
    const token = locationOf(s.brCode).split('/').pop()!;
    const stream = new PassThrough();
    let logs = '';
    stream.on('data', (chunk) => (logs += chunk.toString()));
    const app = await buildHttp(t.rt, stream);
    try {
      expect((await app.inject({ method: 'GET', url: `/pix/v2/rec/${token}` })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
    expect(logs).toContain('/pix/v2/rec/');
    expect(logs).not.toContain(token);
  });

  it('the key is made once and kept: another process, or a restart, publishes the same key; its private half is sealed', async () => {
    const { keys } = await keySet();
    const other = await buildHttp(createRuntime(t.rt.config, t.pool));
    try {
      const res = await other.inject({ method: 'GET', url: '/pix/v2/jwks' });
      expect(res.json().keys).toEqual(keys);
    } finally {
      await other.close();
    }
    const { rows } = await t.pool.query<{ private_jwk: string }>('SELECT private_jwk FROM payload_signing_keys');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.private_jwk).toMatch(/^v1\./);
    expect(rows[0]!.private_jwk).not.toContain('"d"');
  });
});
