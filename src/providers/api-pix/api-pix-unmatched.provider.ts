import type { Task } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import { settleUnmatchedRefund } from '../../unmatched/unmatched.service.js';
import { selectRefunding } from '../../unmatched/unmatched.sql.js';
import type { UnmatchedRefundRequest } from '../port/provider.port.js';
import { ApiPixError, type ApiPixClient } from './api-pix.client.js';
import { apiPixDevolucoes, devolucaoPath, refundOutcome, type Devolucao, type DevolucaoPoll } from './api-pix-refunds.provider.js';
import { pollPayload, schedulePoll } from './api-pix-polling.tasks.js';

export const UNMATCHED_POLL_TASK = 'api-pix:unmatched-refund:poll';
const GET_OP = 'GET /pix/{e2eid}/devolucao/{id}';

/** A devolução of a whole unmatched PIX, under the attempt's own devolução id: asked and sent as a charge refund's. */
export function apiPixUnmatched(rt: Runtime, client: ApiPixClient) {
  const devolucoes = apiPixDevolucoes(rt, client);
  const poll = (r: UnmatchedRefundRequest): DevolucaoPoll => ({ task: UNMATCHED_POLL_TASK, id: r.devolucaoId });
  return {
    getUnmatchedRefund: (r: UnmatchedRefundRequest) => devolucoes.ask(devolucaoPath(r.endToEndId, r.devolucaoId), poll(r)),
    sendUnmatchedRefund: (r: UnmatchedRefundRequest) => devolucoes.send(devolucaoPath(r.endToEndId, r.devolucaoId), r.amount, poll(r)),
  };
}

/** Polls a REFUNDING unmatched payment's devolução until it settles by any route. */
export function unmatchedPollTask(rt: Runtime, api: ApiPixClient): Task {
  return async (payload) => {
    const { id, attempt } = pollPayload(payload);
    const row = await selectRefunding(rt.pool, id);
    if (!row) return;
    const devolucao = await api.find<Devolucao>(devolucaoPath(row.end2end_id, id), GET_OP);
    // Polled only once the PSP reported it: "not found" now is its lag, asked again on the job's retry.
    if (!devolucao) throw new ApiPixError(`API Pix ${GET_OP}: the PSP does not know the devolução`, 404);
    const outcome = refundOutcome(devolucao);
    if (outcome) await settleUnmatchedRefund(rt, id, outcome);
    else await schedulePoll(rt, UNMATCHED_POLL_TASK, id, attempt + 1);
  };
}
