import type { TaskList } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { enqueueUnmatchedRefund, settleUnmatchedRefund, UNMATCHED_REFUND_TASK } from './unmatched.service.js';
import { selectRefunding, selectRefundingDevolucoes } from './unmatched.sql.js';

function devolucaoIdOf(payload: unknown): string {
  const id = (payload as { devolucaoId?: unknown } | null)?.devolucaoId;
  if (typeof id !== 'string') throw new Error('unmatched refund job payload without devolucaoId');
  return id;
}

export function unmatchedTasks(rt: Runtime): TaskList {
  return {
    // Safe to run twice: the provider's call is idempotent by devolução id, and only a REFUNDING record
    // of this very devolução is asked about or settled.
    [UNMATCHED_REFUND_TASK]: async (payload) => {
      const devolucaoId = devolucaoIdOf(payload);
      const row = await selectRefunding(rt.pool, devolucaoId);
      if (!row) return;
      const outcome = await rt.provider.refundUnmatched({ devolucaoId, endToEndId: row.end2end_id, amount: row.amount });
      if (outcome) await settleUnmatchedRefund(rt, devolucaoId, outcome);
    },
  };
}

/** At worker start: every REFUNDING record's job again (a second line that does not depend on the queue). */
export async function scheduleUnmatchedRecovery(rt: Runtime): Promise<void> {
  for (const devolucaoId of await selectRefundingDevolucoes(rt.pool)) await enqueueUnmatchedRefund(rt.pool, devolucaoId);
}
