import type { Task } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import { settleUnmatchedRefund } from '../../unmatched/unmatched.service.js';
import { selectRefunding } from '../../unmatched/unmatched.sql.js';
import type { RefundOutcome, UnmatchedRefundRequest } from '../port/provider.port.js';
import { ApiPixError, type ApiPixClient } from './api-pix.client.js';
import { toValor } from './api-pix-ids.rules.js';
import { pollPayload, schedulePoll } from './api-pix-polling.tasks.js';
import { refundOutcome, type Devolucao } from './api-pix-refunds.provider.js';

export const UNMATCHED_POLL_TASK = 'api-pix:unmatched-refund:poll';
const path = (endToEndId: string, devolucaoId: string) => `/pix/${endToEndId}/devolucao/${devolucaoId}`;
const GET_OP = 'GET /pix/{e2eid}/devolucao/{id}';

/** Answers that mean the PSP made no devolução and will not: it is safe to reopen the payment. */
const REFUSED = new Set([400, 404, 422]);

/**
 * A devolução of a whole unmatched PIX. Looked up first, as for refunds (api-pix-refunds.provider.ts): a rerun
 * finds the one already requested. A PSP that refuses it outright made none: the outcome is FAILED, and
 * the payment is OPEN again. While EM_PROCESSAMENTO its result is polled for, unless a notification
 * brings it first.
 */
export async function refundUnmatchedAtPsp(rt: Runtime, api: ApiPixClient, r: UnmatchedRefundRequest): Promise<RefundOutcome | null> {
  const at = path(r.endToEndId, r.devolucaoId);
  let devolucao = await api.find<Devolucao>(at, GET_OP);
  if (!devolucao) {
    try {
      devolucao = await api.request<Devolucao>('PUT', at, 'PUT /pix/{e2eid}/devolucao/{id}', { valor: toValor(r.amount) });
    } catch (err) {
      if (err instanceof ApiPixError && err.status !== null && REFUSED.has(err.status)) {
        return { status: 'FAILED', reason: `Devolução refused by the PSP${err.detail ? `: ${err.detail}` : ''}` };
      }
      throw err;
    }
  }
  const outcome = refundOutcome(devolucao);
  if (!outcome) await schedulePoll(rt, UNMATCHED_POLL_TASK, r.devolucaoId, 0);
  return outcome;
}

/** Polls a REFUNDING unmatched payment's devolução until it settles by any route. */
export function unmatchedPollTask(rt: Runtime, api: ApiPixClient): Task {
  return async (payload) => {
    const { id, attempt } = pollPayload(payload);
    const row = await selectRefunding(rt.pool, id);
    if (!row) return;
    const devolucao = await api.find<Devolucao>(path(row.end2end_id, id), GET_OP);
    // Unknown at the PSP: the request never reached it; the unmatched:refund job (or its recovery) sends it.
    if (!devolucao) throw new ApiPixError(`API Pix ${GET_OP}: the PSP does not know the devolução`, 404);
    const outcome = refundOutcome(devolucao);
    if (outcome) await settleUnmatchedRefund(rt, id, outcome);
    else await schedulePoll(rt, UNMATCHED_POLL_TASK, id, attempt + 1);
  };
}
