import { receivePayment } from '../../charges/charge-payment.js';
import { AppError } from '../../platform/errors.js';
import { settleRefund } from '../../refunds/refund-settlement.js';
import { selectPendingRefundRequest } from '../../refunds/refund.sql.js';
import type { Runtime } from '../../runtime.js';
import type { PaymentNotification } from '../provider.js';
import { fromPspId, fromValor } from './api-pix-ids.js';
import { DEVOLUCAO_STATUSES, refundOutcome, type Devolucao } from './api-pix-refunds.js';

/** A received PIX as API Pix's webhook sends it (`Pix`); `pagador` is an extension some PSPs add. */
export interface PixEntry {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  infoPagador?: string;
  pagador?: { nome?: string; cpf?: string; cnpj?: string };
  devolucoes?: Devolucao[] | Devolucao;
}

export interface WebhookLog {
  warn(obj: object, msg: string): void;
}

/** What the core rejects for good (redelivering cannot change it): logged for reconciliation, not retried. */
const isFinalRejection = (err: unknown) => err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'VALIDATION_ERROR');

function toPayment(pix: PixEntry & { txid: string }): PaymentNotification {
  const p = pix.pagador;
  return {
    txid: pix.txid, endToEndId: pix.endToEndId, amount: fromValor(pix.valor)!, paidAt: new Date(pix.horario),
    payer: p ? { name: p.nome ?? null, taxId: p.cpf ?? p.cnpj ?? null } : null,
  };
}

/** A devolução in a final state, for a refund of ours that is still PENDING on this very PIX. */
async function settleDevolucao(rt: Runtime, endToEndId: string, d: Devolucao, log: WebhookLog): Promise<void> {
  const refundId = fromPspId('ref', d.id);
  if (!refundId) return; // not requested by us (a MED devolução, another system on the same account)
  if (!DEVOLUCAO_STATUSES.includes(d.status)) {
    log.warn({ refundId, status: d.status }, 'API Pix webhook: devolução with an unknown status ignored');
    return;
  }
  const outcome = refundOutcome(d);
  if (!outcome) return;
  const pending = await selectPendingRefundRequest(rt.pool, refundId);
  if (!pending || pending.end2end_id !== endToEndId) return;
  await settleRefund(rt, refundId, outcome);
}

/**
 * The API Pix webhook's body `{ pix: [...] }` into the core: each PIX through receivePayment
 * (idempotent by endToEndId), each final devolução through settleRefund (idempotent by refund id), so a
 * redelivered notification changes nothing. A PIX the core rejects for good (unknown txid, wrong amount)
 * is logged and skipped; any other failure throws, the PSP gets a 5xx and delivers again.
 * Answers how many PIX the notification carried.
 */
export async function receivePixNotification(rt: Runtime, body: { pix?: PixEntry[] } | null, log: WebhookLog): Promise<number> {
  const entries = body?.pix ?? [];
  for (const pix of entries) {
    if (pix.txid !== undefined) {
      try {
        await receivePayment(rt, toPayment({ ...pix, txid: pix.txid }));
      } catch (err) {
        if (!isFinalRejection(err)) throw err;
        log.warn({ txid: pix.txid, endToEndId: pix.endToEndId, reason: (err as AppError).message }, 'API Pix webhook: PIX not credited; reconcile it');
      }
    }
    // The spec's example shows `devolucoes` as one object though its schema says array: both are read.
    const devolucoes = pix.devolucoes === undefined ? [] : Array.isArray(pix.devolucoes) ? pix.devolucoes : [pix.devolucoes];
    for (const d of devolucoes) await settleDevolucao(rt, pix.endToEndId, d, log);
  }
  return entries.length;
}
