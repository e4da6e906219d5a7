import type { Task } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import { recordPayoutResult } from '../../withdrawals/withdrawal-processing.service.js';
import { PayoutRefused, type PayoutRequest, type PayoutResult } from '../port/provider.port.js';
import { ApiPixError, type ApiPixClient } from './api-pix.client.js';
import { toPspId, toValor, truncate } from './api-pix-ids.rules.js';
import { pollPayload, schedulePoll } from './api-pix-polling.tasks.js';

/*
 * Sending a PIX is NOT part of BACEN's API Pix (it standardises receiving only; pix-standards.md 3.6).
 * This file is the one PSP-specific piece of the adapter, and the part an operator adapts to their
 * PSP. It follows Efí's documented endpoints (base URL ending in /v2):
 *   PUT /gn/pix/{idEnvio}                    { valor, pagador: { chave, infoPagador? }, favorecido: { chave, cpf? | cnpj? } }
 *   GET /gn/pix/enviados/id-envio/{idEnvio}  { endToEndId, idEnvio, valor, status, motivo? }
 * status: EM_PROCESSAMENTO → REALIZADO | NAO_REALIZADO. idEnvio (`[a-zA-Z0-9]{1,35}`) is the
 * withdrawal id without its underscore: the PSP's idempotency key, so a retried send is the same payout.
 */
const SEND = (idEnvio: string) => `/gn/pix/${idEnvio}`;
const LOOKUP = (idEnvio: string) => `/gn/pix/enviados/id-envio/${idEnvio}`;
export const PAYOUT_POLL_TASK = 'api-pix:payout:poll';
const DEFAULT_FAILED_REASON = 'The PSP did not complete the payout';

interface Envio {
  endToEndId?: string;
  status?: string;
  motivo?: string;
}

function payoutResult(e: Envio): PayoutResult {
  if (e.status === 'EM_PROCESSAMENTO') return { status: 'PROCESSING' };
  if (e.status === 'NAO_REALIZADO') return { status: 'FAILED', reason: e.motivo || DEFAULT_FAILED_REASON };
  if (e.status === 'REALIZADO' && e.endToEndId && /^[A-Za-z0-9]{32}$/.test(e.endToEndId)) return { status: 'COMPLETED', endToEndId: e.endToEndId };
  throw new ApiPixError('API Pix payout: unexpected answer (status or endToEndId)', null);
}

/** The payee's CPF or CNPJ as the PSP checks it against the key's owner; a withdrawal's taxId may be masked. */
function payeeDocument(taxId: string | null): { cpf: string } | { cnpj: string } | Record<string, never> {
  const digits = (taxId ?? '').replace(/\D/g, '');
  return digits.length === 11 ? { cpf: digits } : digits.length === 14 ? { cnpj: digits } : {};
}

export function apiPixPayouts(rt: Runtime, client: ApiPixClient) {
  const cfg = rt.config.apiPix!;
  const getPayout = async (withdrawalId: string): Promise<PayoutResult | null> => {
    const envio = await client.find<Envio>(LOOKUP(toPspId(withdrawalId)), 'GET /gn/pix/enviados/id-envio/{idEnvio}');
    return envio && payoutResult(envio);
  };

  const sendPayout = async (p: PayoutRequest): Promise<PayoutResult> => {
    const body = {
      valor: toValor(p.amount),
      pagador: { chave: cfg.payoutKey, ...(p.description ? { infoPagador: truncate(p.description, 140) } : {}) },
      favorecido: { chave: p.pixKey, ...payeeDocument(p.taxId) },
    };
    let result: PayoutResult;
    try {
      result = payoutResult(await client.request<Envio>('PUT', SEND(toPspId(p.withdrawalId)), 'PUT /gn/pix/{idEnvio}', body));
    } catch (err) {
      // 400/422: the PSP refused this request (a key that does not exist, a payee document that does not
      // match, or an idEnvio it already holds): this request sent nothing; the core decides what that
      // proves. Anything else (no answer, 5xx, 409) may have been sent: the job retries, asking first.
      if (err instanceof ApiPixError && (err.status === 400 || err.status === 422)) {
        throw new PayoutRefused(`Payout refused by the PSP${err.detail ? `: ${err.detail}` : ''}`);
      }
      throw err;
    }
    if (result.status === 'PROCESSING') await schedulePoll(rt, PAYOUT_POLL_TASK, p.withdrawalId, 0);
    return result;
  };

  /** Polls a PROCESSING payout until it settles; stops once the withdrawal is no longer PROCESSING. */
  const pollTask: Task = async (payload) => {
    const { id, attempt } = pollPayload(payload);
    const result = await getPayout(id);
    if (!result) return; // never sent: the withdrawal's own processing sends it
    const w = await recordPayoutResult(rt, id, result);
    if (w?.status === 'PROCESSING') await schedulePoll(rt, PAYOUT_POLL_TASK, id, attempt + 1);
  };

  return { sendPayout, getPayout, pollTask };
}
