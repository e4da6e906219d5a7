import type { Task } from '../../platform/jobs.js';
import { settleRefund } from '../../refunds/refund-settlement.service.js';
import { selectPendingRefundRequest } from '../../refunds/refund.sql.js';
import type { Runtime } from '../../runtime.js';
import { PayoutRefused, type DevolucaoState, type RefundOutcome, type RefundRequest } from '../port/provider.port.js';
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

const GET_OP = 'GET /pix/{e2eid}/devolucao/{id}';
const PUT_OP = 'PUT /pix/{e2eid}/devolucao/{id}';
/** Answers to the PUT that refuse that request: no such PIX (404), an id the PSP already holds, a value it will not return (400/422). */
const REFUSED = new Set([400, 404, 422]);

export const devolucaoPath = (endToEndId: string, devolucaoId: string) => `/pix/${endToEndId}/devolucao/${devolucaoId}`;
const path = (endToEndId: string, refundId: string) => devolucaoPath(endToEndId, toPspId(refundId));

/** DEVOLVIDO → COMPLETED, NAO_REALIZADO → FAILED with the PSP's motivo; null while EM_PROCESSAMENTO. */
export function refundOutcome(d: Pick<Devolucao, 'status' | 'motivo'>): RefundOutcome | null {
  if (d.status === 'DEVOLVIDO') return { status: 'COMPLETED' };
  if (d.status === 'NAO_REALIZADO') return { status: 'FAILED', reason: d.motivo || null };
  if (d.status === 'EM_PROCESSAMENTO') return null;
  throw new ApiPixError('API Pix devolução: unknown status', null);
}

/** Where a devolução's result is polled for while it is EM_PROCESSAMENTO: the task and the id it takes. */
export interface DevolucaoPoll { task: string; id: string }

/**
 * The port's ask and send of one devolução, a charge refund's or an unmatched payment's (the core decides
 * when to send and what a refusal proves: providers/port/payout-send.service.ts). Whenever the PSP answers
 * EM_PROCESSAMENTO, the result is polled for, unless a notification brings it first.
 */
export function apiPixDevolucoes(rt: Runtime, client: ApiPixClient) {
  const state = async (d: Devolucao, poll: DevolucaoPoll): Promise<DevolucaoState> => {
    const outcome = refundOutcome(d);
    if (outcome) return outcome;
    await schedulePoll(rt, poll.task, poll.id, 0);
    return { status: 'PROCESSING' };
  };
  return {
    ask: async (at: string, poll: DevolucaoPoll): Promise<DevolucaoState | null> => {
      const d = await client.find<Devolucao>(at, GET_OP);
      return d && state(d, poll);
    },
    send: async (at: string, amount: number, poll: DevolucaoPoll): Promise<DevolucaoState> => {
      let d: Devolucao;
      try {
        d = await client.request<Devolucao>('PUT', at, PUT_OP, { valor: toValor(amount) });
      } catch (err) {
        // This request made no devolução; anything else (no answer, 5xx, 409) may have made one.
        if (err instanceof ApiPixError && err.status !== null && REFUSED.has(err.status)) {
          throw new PayoutRefused(`Devolução refused by the PSP${err.detail ? `: ${err.detail}` : ''}`);
        }
        throw err;
      }
      return state(d, poll);
    },
  };
}

/**
 * A charge refund's devolução: its id is derived from the refund id, so every send names the same
 * devolução, and the webhook finds the refund again.
 */
export function apiPixRefunds(rt: Runtime, client: ApiPixClient) {
  const devolucoes = apiPixDevolucoes(rt, client);
  const poll = (r: RefundRequest): DevolucaoPoll => ({ task: REFUND_POLL_TASK, id: r.refundId });
  return {
    getRefund: (r: RefundRequest) => devolucoes.ask(path(r.endToEndId, r.refundId), poll(r)),
    sendRefund: (r: RefundRequest) => devolucoes.send(path(r.endToEndId, r.refundId), r.amount, poll(r)),
  };
}

/** Polls a PENDING refund's devolução until it settles; stops once the refund is settled by any route. */
export function refundPollTask(rt: Runtime, client: ApiPixClient): Task {
  return async (payload) => {
    const { id, attempt } = pollPayload(payload);
    const pending = await selectPendingRefundRequest(rt.pool, id);
    if (!pending) return;
    const devolucao = await client.find<Devolucao>(path(pending.end2end_id, id), GET_OP);
    // Polled only once the PSP reported it: "not found" now is its lag, asked again on the job's retry.
    if (!devolucao) throw new ApiPixError(`API Pix ${GET_OP}: the PSP does not know the devolução`, 404);
    const outcome = refundOutcome(devolucao);
    if (outcome) await settleRefund(rt, id, outcome);
    else await schedulePoll(rt, REFUND_POLL_TASK, id, attempt + 1);
  };
}
