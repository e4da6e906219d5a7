import client from 'prom-client';
import type { ReceivedPix } from '../../unmatched/received-pix.service.js';
import type { AmountBreakdown } from '../port/cobv.port.js';
import { ApiPixError, type ApiPixClient } from './api-pix.client.js';
import { fromValor } from './api-pix-ids.rules.js';
import { DEVOLUCAO_STATUSES, type Devolucao } from './api-pix-refunds.provider.js';

/** API Pix `Pix` as the PSP answers it (`GET /pix/{e2eid}`, `GET /pix` items); `pagador` is an extension some PSPs add. */
export interface PspPix {
  endToEndId?: unknown;
  txid?: unknown;
  valor?: unknown;
  horario?: unknown;
  pagador?: { nome?: unknown; cpf?: unknown; cnpj?: unknown } | null;
  componentesValor?: unknown;
}

export type UnconfirmedReason = 'not_found' | 'mismatch' | 'error';

/** Why a notification was not acted on; `reason`: the PSP does not know it, contradicts it, or could not be asked. */
export const unconfirmedNotifications = new client.Counter({
  name: 'pixgate_psp_unconfirmed_notifications_total',
  help: 'PSP notifications (received PIX or devolução) the PSP did not confirm, so nothing was changed',
  labelNames: ['reason'] as const,
});

export type Confirmed<T> = { ok: true; value: T } | { ok: false; reason: UnconfirmedReason };

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * `componentesValor` of a due-date charge's PIX in cents (docs/contract/due-date-charges.md#api-pix): `original`
 * and the `abatimento`, `desconto`, `multa`, `juros` present; null when absent, malformed, or a Pix Saque/Troco's.
 */
export function componentsOf(c: unknown): AmountBreakdown | null {
  if (c === null || typeof c !== 'object') return null;
  const parts = c as Record<string, unknown>;
  if ('saque' in parts || 'troco' in parts) return null;
  const cents = (name: string): number | null => {
    const part = parts[name];
    if (part === undefined) return 0;
    const valor = part !== null && typeof part === 'object' ? (part as { valor?: unknown }).valor : undefined;
    return typeof valor === 'string' ? fromValor(valor) : null;
  };
  const original = parts.original === undefined ? null : cents('original');
  const [rebate, discount, fine, interest] = ['abatimento', 'desconto', 'multa', 'juros'].map(cents);
  if (original === null || rebate == null || discount == null || fine == null || interest == null) return null;
  return { original, rebate, discount, fine, interest };
}

/** The PSP's own record of a received PIX, as the core takes it; null when it is not a well-formed one for `endToEndId`. */
export function toReceivedPix(p: PspPix, endToEndId?: string): ReceivedPix | null {
  if (typeof p.endToEndId !== 'string' || !/^[A-Za-z0-9]{32}$/.test(p.endToEndId)) return null;
  if (endToEndId !== undefined && p.endToEndId !== endToEndId) return null;
  const amount = typeof p.valor === 'string' ? fromValor(p.valor) : null;
  const receivedAt = typeof p.horario === 'string' ? new Date(p.horario) : null;
  if (!amount || !receivedAt || Number.isNaN(receivedAt.getTime())) return null;
  if (p.txid !== undefined && p.txid !== null && (typeof p.txid !== 'string' || !/^[A-Za-z0-9]{1,35}$/.test(p.txid))) return null;
  const payer = p.pagador ? { name: text(p.pagador.nome), taxId: text(p.pagador.cpf) ?? text(p.pagador.cnpj) } : null;
  return {
    endToEndId: p.endToEndId, txid: text(p.txid), amount, receivedAt, payer: payer && (payer.name || payer.taxId) ? payer : null,
    components: componentsOf(p.componentesValor),
  };
}

/** The PSP's answer to a GET that confirms a notification: found, not found, or no answer to trust. */
export async function ask<T>(find: () => Promise<T | null>): Promise<Confirmed<T>> {
  try {
    const found = await find();
    return found === null ? { ok: false, reason: 'not_found' } : { ok: true, value: found };
  } catch (err) {
    if (err instanceof ApiPixError) return { ok: false, reason: 'error' };
    throw err;
  }
}

/** `GET /pix/{e2eid}` over the authenticated client: the PSP's word on a PIX a notification claims. */
export async function confirmPix(api: ApiPixClient, endToEndId: string): Promise<Confirmed<ReceivedPix>> {
  const answer = await ask(() => api.find<PspPix>(`/pix/${endToEndId}`, 'GET /pix/{e2eid}'));
  if (!answer.ok) return answer;
  const pix = toReceivedPix(answer.value, endToEndId);
  return pix ? { ok: true, value: pix } : { ok: false, reason: 'mismatch' };
}

/** `GET /pix/{e2eid}/devolucao/{id}`: the PSP's word on a devolução of that PIX. */
export async function confirmDevolucao(api: ApiPixClient, endToEndId: string, id: string): Promise<Confirmed<Devolucao>> {
  const answer = await ask(() => api.find<Devolucao>(`/pix/${endToEndId}/devolucao/${id}`, 'GET /pix/{e2eid}/devolucao/{id}'));
  if (!answer.ok) return answer;
  const d = answer.value;
  return d.id === id && DEVOLUCAO_STATUSES.includes(d.status) ? answer : { ok: false, reason: 'mismatch' };
}
