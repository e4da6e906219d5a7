import { withTransaction, type Executor } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { enqueue } from '../platform/jobs.js';
import { keysetPage, type Cursors, type Page, type PageRequest } from '../platform/pagination.js';
import type { RefundOutcome } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import { postUnmatchedRefund, postUnmatchedRefundReversal, postUnmatchedRefundSettled } from './unmatched.ledger.js';
import { toUnmatchedPayment, type UnmatchedPayment } from './unmatched.schemas.js';
import {
  listUnmatchedQuery, lockRefunding, markRefunded, markRefunding, newDevolucaoId, reopen, selectUnmatched,
  type UnmatchedRow, type UnmatchedStatus,
} from './unmatched.sql.js';

export const UNMATCHED_REFUND_TASK = 'unmatched:refund';
const DEFAULT_FAILED_REASON = 'The PSP did not complete the devolução';

export async function listUnmatchedPayments(
  db: Executor, cursors: Cursors, q: PageRequest & { status?: UnmatchedStatus },
): Promise<Page<UnmatchedPayment>> {
  const page = await keysetPage<UnmatchedRow>(db, cursors, { list: 'admin.unmatched-payments', status: q.status ?? null },
    listUnmatchedQuery(q.status), q);
  return { items: page.items.map(toUnmatchedPayment), pagination: page.pagination };
}

export async function getUnmatchedPayment(db: Executor, id: string): Promise<UnmatchedPayment> {
  const row = await selectUnmatched(db, id);
  if (!row) throw notFound('Unmatched payment');
  return toUnmatchedPayment(row);
}

/** Queues the provider call of a refund attempt; its job key makes a repeated queueing the same job. */
export const enqueueUnmatchedRefund = (db: Executor, devolucaoId: string) =>
  enqueue(db, UNMATCHED_REFUND_TASK, { devolucaoId }, { jobKey: `${UNMATCHED_REFUND_TASK}:${devolucaoId}` });

/**
 * The operator returns an unmatched PIX, whole, to its payer: in one short transaction the record
 * becomes REFUNDING with a fresh devolução id, the money moves to payouts in transit, and the job that
 * asks the provider is queued (the PSP is called from the job, after commit, never inside it).
 */
export async function refundUnmatchedPayment(rt: Runtime, id: string): Promise<UnmatchedPayment> {
  return withTransaction(rt.pool, async (tx) => {
    const row = await selectUnmatched(tx, id, true);
    if (!row) throw notFound('Unmatched payment');
    if (row.status !== 'OPEN') throw new AppError('INVALID_STATE', `Unmatched payment is ${row.status}; only an OPEN one can be refunded`);
    const refunding = await markRefunding(tx, id, newDevolucaoId());
    await postUnmatchedRefund(tx, refunding);
    await enqueueUnmatchedRefund(tx, refunding.devolucao_id!);
    return toUnmatchedPayment(refunding);
  });
}

/**
 * The devolução's final state, from whichever route brings it first (the provider's answer, a
 * confirmed notification, polling): DEVOLVIDO → REFUNDED; NAO_REALIZADO → OPEN again with the PSP's
 * reason, the money held for the payer again. Idempotent: only the REFUNDING record of this very
 * devolução changes; undefined when there is none (settled already, or not ours).
 */
export async function settleUnmatchedRefund(rt: Runtime, devolucaoId: string, outcome: RefundOutcome): Promise<UnmatchedRow | undefined> {
  return withTransaction(rt.pool, async (tx) => {
    const row = await lockRefunding(tx, devolucaoId);
    if (!row) return undefined;
    if (outcome.status === 'COMPLETED') {
      await markRefunded(tx, row.id);
      await postUnmatchedRefundSettled(tx, row);
    } else {
      await reopen(tx, row.id, outcome.reason || DEFAULT_FAILED_REASON);
      await postUnmatchedRefundReversal(tx, row);
    }
    return selectUnmatched(tx, row.id);
  });
}
