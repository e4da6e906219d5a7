import type { Task } from '../../platform/jobs.js';
import { settleRefund } from '../../refunds/refund-settlement.service.js';
import { selectPendingRefundRequest } from '../../refunds/refund.sql.js';
import type { Runtime } from '../../runtime.js';
import type { RefundOutcome, RefundRequest } from '../port/provider.port.js';
import { ApiPixError, type ApiPixClient } from './api-pix.client.js';
import { toPspId, toValor } from './api-pix-ids.rules.js';
import { pollPayload, schedulePoll } from './api-pix-polling.tasks.js';

export const REFUND_POLL_TASK = 'api-pix:refund:poll';

/** API Pix `Devolucao` (the fields we read). */
export interface Devolucao {
  id: string;
  status: string;
  motivo?: string;
}

export const DEVOLUCAO_STATUSES = ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'];

const path = (endToEndId: string, refundId: string) => `/pix/${endToEndId}/devolucao/${toPspId(refundId)}`;

/** DEVOLVIDO → COMPLETED, NAO_REALIZADO → FAILED with the PSP's motivo; null while EM_PROCESSAMENTO. */
export function refundOutcome(d: Pick<Devolucao, 'status' | 'motivo'>): RefundOutcome | null {
  if (d.status === 'DEVOLVIDO') return { status: 'COMPLETED' };
  if (d.status === 'NAO_REALIZADO') return { status: 'FAILED', reason: d.motivo || null };
  if (d.status === 'EM_PROCESSAMENTO') return null;
  throw new ApiPixError('API Pix devolução: unknown status', null);
}

/**
 * The refunds.request job's call. The devolução is looked up first: its id is derived from the refund
 * id, so a rerun (a retry, the worker-start recovery) finds the one already requested instead of
 * sending a second PUT that some PSPs refuse. While it is EM_PROCESSAMENTO its result is polled for,
 * unless the webhook brings it first.
 */
export async function requestDevolucao(rt: Runtime, client: ApiPixClient, r: RefundRequest): Promise<void> {
  const at = path(r.endToEndId, r.refundId);
  const devolucao = (await client.find<Devolucao>(at, 'GET /pix/{e2eid}/devolucao/{id}'))
    ?? (await client.request<Devolucao>('PUT', at, 'PUT /pix/{e2eid}/devolucao/{id}', { valor: toValor(r.amount) }));
  const outcome = refundOutcome(devolucao);
  if (outcome) await settleRefund(rt, r.refundId, outcome);
  else await schedulePoll(rt, REFUND_POLL_TASK, r.refundId, 0);
}

/** Polls a PENDING refund's devolução until it settles; stops once the refund is settled by any route. */
export function refundPollTask(rt: Runtime, client: ApiPixClient): Task {
  return async (payload) => {
    const { id, attempt } = pollPayload(payload);
    const pending = await selectPendingRefundRequest(rt.pool, id);
    if (!pending) return;
    const devolucao = await client.find<Devolucao>(path(pending.end2end_id, id), 'GET /pix/{e2eid}/devolucao/{id}');
    // Unknown at the PSP: the request never reached it; the refunds.request job (or its recovery) sends it.
    if (!devolucao) throw new ApiPixError('API Pix GET /pix/{e2eid}/devolucao/{id}: the PSP does not know the devolução', 404);
    const outcome = refundOutcome(devolucao);
    if (outcome) await settleRefund(rt, id, outcome);
    else await schedulePoll(rt, REFUND_POLL_TASK, id, attempt + 1);
  };
}
