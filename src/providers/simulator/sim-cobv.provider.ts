import { isCivilDate, saoPauloDate } from '../../calendar/index.js';
import { termsOfCharge } from '../../charges/charge-due-date.rules.js';
import { loadCharge } from '../../charges/charge.view.js';
import { toCobVPayloadValor } from '../../charges/due-date-cobv.rules.js';
import { amountDue, lastDayToPay } from '../../charges/due-date.rules.js';
import { storeName } from '../../merchants/merchant.service.js';
import { buildDynamicBrCode, newDynamicTxid, payloadLocation } from '../../pix/index.js';
import { randomBase62 } from '../../platform/ids.js';
import type { Runtime } from '../../runtime.js';
import type { CreateChargeInput, ProviderCharge } from '../port/provider.port.js';
import { insertCobvLocation, selectCobvLocation, type CobvLocationRow } from './sim-cobv.sql.js';
import type { PayloadSigner } from './sim-payload.crypto.js';

// The simulator as a PSP issues due-date charges (docs/contract/due-date-charges.md#simulator): a dynamic BR
// Code whose location is Pixgate's own, and there the payer-side payload BACEN defines (`CobVPayload`) as a JWS.

/** A location token: 32 random alphanumerics, a capability URL (BACEN: `{pixUrlAccessToken}`). */
export const LOCATION_TOKEN = /^[A-Za-z0-9]{32}$/;

/**
 * A `cobv` at the simulated PSP: a 32-character txid (BACEN's 26–35 for cobv), its location recorded, and the
 * dynamic BR Code pointing at it — no amount in the code: it is the payload's, and changes with the day.
 */
export async function issueCobv(rt: Runtime, input: CreateChargeInput): Promise<ProviderCharge> {
  const txid = newDynamicTxid();
  const token = randomBase62(32);
  const location = payloadLocation(rt.config.publicUrl, 'cobv', token);
  const brCode = buildDynamicBrCode({ location, merchantName: input.merchant.name, merchantCity: input.merchant.city });
  await insertCobvLocation(rt.pool, token, txid);
  return { txid, brCode };
}

/** BACEN's `Problema` (RFC 7807) of the payload locations. */
export interface PayloadProblem {
  type: string;
  title: string;
  status: 400 | 404;
  detail: string;
  violacoes?: Array<{ razao: string; propriedade: string; valor?: string }>;
}

const notFound = (): PayloadProblem => ({
  type: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado', title: 'Cobrança não encontrada.', status: 404,
  detail: 'A cobrança em questão não foi encontrada para a location requisitada.',
});

const invalid = (propriedade: string, razao: string, valor?: string): PayloadProblem => ({
  type: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadOperacaoInvalida', title: 'Requisição inválida.', status: 400,
  detail: 'A cobrança existe, mas a requisição é inválida.', violacoes: [{ razao, propriedade, ...(valor !== undefined && { valor }) }],
});

/** `devedor` / `recebedor` identification: a CPF has 11 digits, a CNPJ 14. */
const person = (taxId: string, nome: string) => (taxId.length === 11 ? { cpf: taxId, nome } : { cnpj: taxId, nome });

/**
 * The receiver as its PSP knows it: the KYC tax id and legal (or full) name, the trade name, the city. Pixgate
 * keeps no street address, so `logradouro`, `uf` and `cep` are left out (docs/contract/due-date-charges.md#payer-payload).
 */
function receiver(m: CobvLocationRow) {
  const nome = (m.kyc_legal_name || m.kyc_full_name || storeName(m) || m.user_name).slice(0, 200);
  const id = m.kyc_tax_id ? person(m.kyc_tax_id, nome) : { nome };
  const fantasia = m.kyc_trade_name && 'cnpj' in id ? { nomeFantasia: m.kyc_trade_name.slice(0, 200) } : {};
  return { ...id, ...fantasia, cidade: m.city };
}

/**
 * `GET /pix/v2/cobv/<token>?DPP=&codMun=` (BACEN's `CobPayload` tag): the charge as the payer's bank shows it,
 * `valor.final` the amount due on the intended payment date DPP (default today in São Paulo), signed. Refused
 * as BACEN lists: a DPP that is not a date, before today or after the last day to pay; a codMun that is not 7
 * digits. A paid charge is still served, `CONCLUIDA`, so the payer learns why it cannot pay it again.
 */
export async function cobvPayload(
  rt: Runtime, signer: PayloadSigner, token: string, query: { DPP?: string; codMun?: string },
): Promise<{ jws: string } | { problem: PayloadProblem }> {
  if (!LOCATION_TOKEN.test(token)) return { problem: notFound() };
  const location = await selectCobvLocation(rt.pool, token);
  const charge = location && (await loadCharge(rt.pool, location.charge_id));
  const terms = charge && termsOfCharge(charge);
  if (!location || !charge || !terms || !charge.customer?.name || !charge.customer.taxId) return { problem: notFound() };
  if (query.codMun !== undefined && !/^\d{7}$/.test(query.codMun)) return { problem: invalid('codMun', 'codMun não respeita o schema (7 dígitos)', query.codMun) };
  const today = saoPauloDate(new Date());
  const dpp = query.DPP ?? today;
  if (!isCivilDate(dpp)) return { problem: invalid('DPP', 'DPP não respeita o schema (YYYY-MM-DD)', dpp) };
  if (dpp < today) return { problem: invalid('DPP', 'DPP anterior ao momento presente', dpp) };
  const due = amountDue(terms, dpp);
  if (!due) return { problem: invalid('DPP', `DPP superior à validade da cobrança (último dia: ${lastDayToPay(terms)})`, dpp) };
  const payload = {
    calendario: {
      criacao: charge.createdAt, apresentacao: new Date().toISOString(), dataDeVencimento: terms.dueDate, validadeAposVencimento: terms.daysAfterDue,
    },
    devedor: person(charge.customer.taxId, charge.customer.name.slice(0, 200)),
    recebedor: receiver(location),
    txid: charge.txid,
    revisao: 0,
    status: charge.status === 'PENDING' || charge.status === 'EXPIRED' ? 'ATIVA' : 'CONCLUIDA',
    valor: toCobVPayloadValor(due),
    chave: location.pix_key,
    ...(charge.description ? { solicitacaoPagador: charge.description } : {}),
  };
  return { jws: await signer.sign(payload) };
}
