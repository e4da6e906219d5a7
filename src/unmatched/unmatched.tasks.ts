import type { TaskList } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { enqueueUnmatchedRefund, requestUnmatchedRefund, UNMATCHED_REFUND_TASK } from './unmatched.service.js';
import { selectRefundingDevolucoes } from './unmatched.sql.js';

function devolucaoIdOf(payload: unknown): string {
  const id = (payload as { devolucaoId?: unknown } | null)?.devolucaoId;
  if (typeof id !== 'string') throw new Error('unmatched refund job payload without devolucaoId');
  return id;
}

export function unmatchedTasks(rt: Runtime): TaskList {
  return {
    [UNMATCHED_REFUND_TASK]: (payload) => requestUnmatchedRefund(rt, devolucaoIdOf(payload)),
  };
}

/** At worker start: every REFUNDING record's job again (a second line that does not depend on the queue). */
export async function scheduleUnmatchedRecovery(rt: Runtime): Promise<void> {
  for (const devolucaoId of await selectRefundingDevolucoes(rt.pool)) await enqueueUnmatchedRefund(rt.pool, devolucaoId);
}
