import { withTransaction, type Executor, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { enqueue, runExclusive } from '../platform/jobs.js';
import { keysetPage, type Cursors, type Page, type PageRequest } from '../platform/pagination.js';
import { askOrSend } from '../providers/port/payout-send.service.js';
import { markSeen } from '../providers/port/payout-send.sql.js';
import type { RefundOutcome } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import { postUnmatchedRefund, postUnmatchedRefundReversal, postUnmatchedRefundSettled } from './unmatched.ledger.js';
import { toUnmatchedPayment, type UnmatchedPayment } from './unmatched.schemas.js';
import {
  listUnmatchedQuery, lockRefunding, markRefunded, markRefunding, newDevolucaoId, reopen, selectRefunding, selectUnmatched,
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
export const enqueueUnmatchedRefund = (db: Executor, devolucaoId: string, runAt?: Date) =>
  enqueue(db, UNMATCHED_REFUND_TASK, { devolucaoId }, { jobKey: `${UNMATCHED_REFUND_TASK}:${devolucaoId}`, runAt });

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
 * devolução changes; undefined when there is none (settled already, or not ours) — or, with `guard`,
 * when the guard does not hold once the record is locked.
 */
export async function settleUnmatchedRefund(
  rt: Runtime, devolucaoId: string, outcome: RefundOutcome, guard?: (tx: Tx) => Promise<boolean>,
): Promise<UnmatchedRow | undefined> {
  return withTransaction(rt.pool, async (tx) => {
    const row = await lockRefunding(tx, devolucaoId);
    if (!row || (guard && !(await guard(tx)))) return undefined;
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

/** While the PSP's word stays out (a refused resend after an uncertain send), the refund job looks again after this. */
const ASK_AGAIN_AFTER_MS = 60_000;
const NOT_MADE = 'The PSP has no record of the devolução';

/**
 * The job of a refund attempt: gets its devolução made at the provider, one run per devolução at a time
 * (docs/contract/psp.md#payout-jobs), through the one send rule of every payout (askOrSend). A refusal of
 * its first, certain send makes the payment OPEN again with the reason; after an uncertain send only the
 * PSP's own word on the devolução decides, so a payment the PSP did return is never reopened. Safe to run
 * twice: only the REFUNDING record of this very devolução is asked about or settled.
 */
export async function requestUnmatchedRefund(rt: Runtime, devolucaoId: string): Promise<void> {
  await runExclusive(rt.pool, `${UNMATCHED_REFUND_TASK}:${devolucaoId}`, async () => {
    const row = await selectRefunding(rt.pool, devolucaoId);
    if (!row) return;
    const input = { devolucaoId, endToEndId: row.end2end_id, amount: row.amount };
    const run = await askOrSend(rt.pool, {
      kind: 'unmatched', key: devolucaoId, notMadeReason: NOT_MADE,
      ask: () => rt.provider.getUnmatchedRefund(input),
      send: () => rt.provider.sendUnmatchedRefund(input),
      fail: async (reason, guard) => !!(await settleUnmatchedRefund(rt, devolucaoId, { status: 'FAILED', reason }, guard)),
    });
    if (run.outcome === 'undecided') {
      await enqueueUnmatchedRefund(rt.pool, devolucaoId, new Date(Date.now() + ASK_AGAIN_AFTER_MS));
    } else if (run.outcome === 'state') {
      // The PSP holds it: its result comes by notification or the provider's polling; its "not found" is lag from now on.
      if (run.state.status === 'PROCESSING') await markSeen(rt.pool, 'unmatched', devolucaoId);
      else await settleUnmatchedRefund(rt, devolucaoId, run.state);
    }
  });
}
