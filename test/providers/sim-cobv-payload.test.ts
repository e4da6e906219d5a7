// docs/contract/due-date-charges.md#payer-payload: the simulator behaves as a due-date charge's PSP. A payer's
// bank reads the location from the BR Code, fetches `GET <location>?DPP=`, verifies the JWS with jose against
// the key set its header names (`jku`, fetched over HTTP from the running server), finds BACEN's CobVPayload,
// and pays `valor.final` — which is exactly what the charge is credited on that day.
import { createServer } from 'node:net';
import { compactVerify, createRemoteJWKSet, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/calendar/index.js';
import { parseBrCode, decodeTlv } from '../../src/pix/index.js';
import { dueCharge, parts, payer, payOn, plainWednesday, today } from '../charges/due-date-support.js';
import { check, createCharge } from '../charges/support.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { apiPixConformance } from './fake-psp-openapi.js';

/**
 * The one part of CobVPayload the simulator cannot give: the receiver's street address. Pixgate keeps no
 * merchant address (docs/contract/due-date-charges.md#payer-payload), so `recebedor` carries its tax id, names and
 * city, and these three required fields are knowingly absent.
 */
const NO_STREET_ADDRESS = ['logradouro', 'uf', 'cep'].map((p) => `/recebedor must have required property '${p}' {"missingProperty":"${p}"}`);
const payloadViolations = async (payload: unknown) =>
  (await apiPixConformance()).checkSchema('CobVPayload', payload).filter((v) => !NO_STREET_ADDRESS.includes(v));

let t: TestContext;
let base: string;
let m: { id: string; key: string };
let cust: string;
let D0: string;

/** A free port, so PUBLIC_URL can name the port the server then listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestContext({ PUBLIC_URL: base }, { worker: false });
  await t.app.listen({ port, host: '127.0.0.1' });
  m = await t.merchant({ kyc: { status: 'APPROVED', tradeName: 'Escola Aurora', legalName: 'Aurora Ensino Ltda', taxId: '11222333000181' }, city: 'CAMPINAS' });
  cust = await payer(t, m, 'Joana Responsável');
  D0 = plainWednesday();
});
afterAll(async () => { await t?.close(); });

/** The location in a dynamic BR Code: 26-25, without a scheme. */
const locationOf = (brCode: string) => {
  const account = parseBrCode(brCode).fields.find((f) => f.id === '26')!.value;
  return decodeTlv(account).find((f) => f.id === '25')!.value;
};

/** What a payer's bank does: fetch the location (http here, https in production) and verify the JWS. */
async function fetchPayload(location: string, query = '') {
  const res = await fetch(`http://${location}${query}`);
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text };
}

async function verified(jws: string) {
  const header = decodeProtectedHeader(jws);
  expect(header).toMatchObject({ alg: 'PS256', jku: `${base}/pix/v2/jwks` });
  expect(typeof header.kid).toBe('string');
  const { payload } = await compactVerify(jws, createRemoteJWKSet(new URL(header.jku!)), { algorithms: ['PS256'] });
  return JSON.parse(new TextDecoder().decode(payload));
}

describe('the payer-side payload of a due-date charge', () => {
  it('is a JWS verified with jose against the key set at jku; the payload is BACEN\'s CobVPayload with valor.final the amount due on DPP', async () => {
    const c = await dueCharge(t, m, cust, {
      dueDate: D0, description: 'Mensalidade de dezembro', rebate: { mode: 'FIXED', value: 1000 },
      discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: D0, value: 300 }] }, fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 },
    });
    const location = locationOf(c.brCode);
    expect(location).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\d+/pix/v2/cobv/[A-Za-z0-9]{32}$`));

    // DPP = D0: rebate R$ 10,00 and 3 % = R$ 30,00 off → R$ 960,00
    const onDue = await fetchPayload(location, `?DPP=${D0}&codMun=3509502`);
    expect([onDue.status, onDue.type]).toEqual([200, 'application/jose']);
    const payload = await verified(onDue.text);
    expect(await payloadViolations(payload)).toEqual([]);
    expect(payload).toMatchObject({
      txid: c.txid, revisao: 0, status: 'ATIVA', chave: expect.any(String), solicitacaoPagador: 'Mensalidade de dezembro',
      calendario: { criacao: c.createdAt, dataDeVencimento: D0, validadeAposVencimento: 30 },
      devedor: { nome: 'Joana Responsável' },
      recebedor: { cnpj: '11222333000181', nome: 'Aurora Ensino Ltda', nomeFantasia: 'Escola Aurora', cidade: 'CAMPINAS' },
      valor: { original: '1000.00', abatimento: '10.00', desconto: '30.00', final: '960.00' },
    });
    expect(Date.parse(payload.calendario.apresentacao)).toBeGreaterThan(Date.now() - 60_000);

    // DPP = D0 + 1: no discount; fine 2 % = R$ 20,00, interest ⌊100000 × 100 / 300000⌋ = R$ 0,33 → R$ 1.010,33
    const late = await verified((await fetchPayload(location, `?DPP=${addDays(D0, 1)}`)).text);
    expect(late.valor).toEqual({ original: '1000.00', multa: '20.00', juros: '0.33', abatimento: '10.00', final: '1010.33' });
    expect(await payloadViolations(late)).toEqual([]);

    // Without DPP: today, the amount due `check` shows
    const now = await verified((await fetchPayload(location)).text);
    expect(now.valor.final).toBe(((await check(t, m, c.id)).amountDue / 100).toFixed(2));

    // The payer's bank pays valor.final on D0 + 1: exactly what is credited
    const paid = (await payOn(t, c.id, addDays(D0, 1))).body.data;
    expect(paid).toMatchObject({ paidAmount: 101_033, paidBreakdown: parts({ rebate: 1000, fine: 2000, interest: 33 }) });
    // Served still once paid, CONCLUIDA, so the payer learns why it cannot pay it again
    expect((await verified((await fetchPayload(location)).text)).status).toBe('CONCLUIDA');
  });

  it('the key set is stable: two payloads carry the same kid, the JWKS has only the public half', async () => {
    const a = await dueCharge(t, m, cust, { dueDate: D0 });
    const b = await dueCharge(t, m, cust, { dueDate: D0 });
    const [ja, jb] = [(await fetchPayload(locationOf(a.brCode))).text, (await fetchPayload(locationOf(b.brCode))).text];
    expect(decodeProtectedHeader(ja).kid).toBe(decodeProtectedHeader(jb).kid);
    const jwks = await (await fetch(`${base}/pix/v2/jwks`)).json() as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'PS256', use: 'sig', kid: decodeProtectedHeader(ja).kid });
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(jwks.keys[0]).not.toHaveProperty(secret);
    // Kept in the database, the private half sealed
    const { rows } = await t.pool.query('SELECT private_jwk FROM payload_signing_keys');
    expect(rows).toHaveLength(1);
    expect(rows[0].private_jwk).toMatch(/^v1\./);
  });

  it('refuses as BACEN lists: DPP before today, after the last day to pay, not a date; codMun not 7 digits; an unknown location', async () => {
    const c = await dueCharge(t, m, cust, { dueDate: D0, daysAfterDue: 0 });
    const location = locationOf(c.brCode);
    const problem = async (query: string) => {
      const res = await fetchPayload(location, query);
      expect(res.type).toMatch(/^application\/problem\+json/);
      return { status: res.status, ...JSON.parse(res.text) };
    };
    const invalid = { status: 400, type: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadOperacaoInvalida', title: expect.any(String) };
    expect(await problem(`?DPP=${addDays(today(), -1)}`)).toMatchObject({ ...invalid, violacoes: [{ propriedade: 'DPP', razao: 'DPP anterior ao momento presente' }] });
    expect(await problem(`?DPP=${addDays(D0, 1)}`)).toMatchObject({ ...invalid, violacoes: [{ propriedade: 'DPP' }] });
    expect(await problem('?DPP=2026-02-30')).toMatchObject({ ...invalid, violacoes: [{ propriedade: 'DPP' }] });
    expect(await problem('?DPP=a&DPP=b')).toMatchObject({ ...invalid, violacoes: [{ propriedade: 'DPP' }] });
    expect(await problem('?codMun=355030')).toMatchObject({ ...invalid, violacoes: [{ propriedade: 'codMun' }] });
    expect((await apiPixConformance()).checkSchema('Problema', await problem('?codMun=x'))).toEqual([]);

    const unknown = await fetchPayload(location.replace(/[A-Za-z0-9]{32}$/, 'A'.repeat(32)));
    expect([unknown.status, JSON.parse(unknown.text).type]).toEqual([404, 'https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado']);
    expect((await fetchPayload(location.replace(/[A-Za-z0-9]{32}$/, 'short'))).status).toBe(404);
    // An immediate charge has no location here: its BR Code is static
    expect(parseBrCode((await createCharge(t, m, { amount: 1000 })).brCode).fields.find((f) => f.id === '54')).toBeDefined();
  });
});
