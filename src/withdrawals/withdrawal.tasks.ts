import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';
import { processJob, processWithdrawal } from './withdrawal-processing.service.js';
import { recoverStuckWithdrawals, recoveryJob, scheduleRecovery } from './withdrawal-recovery.service.js';

/** The withdrawal id of a job payload ({ withdrawalId }); a job without one is malformed. */
export function withdrawalIdOf(payload: unknown): string {
  const id = (payload as { withdrawalId?: unknown } | null)?.withdrawalId;
  if (typeof id !== 'string') throw new Error('withdrawal job payload without withdrawalId');
  return id;
}

/**
 * Queued when a worker starts: the jobs of a worker that died (this one's previous life included) stay
 * locked, so stuck withdrawals are swept at once and then every WITHDRAWAL_SWEEP_INTERVAL_MS.
 */
export const scheduleWithdrawalRecovery = (rt: Runtime) => scheduleRecovery(rt.pool);

export function withdrawalTasks(rt: Runtime): TaskList {
  return {
    [processJob.task]: (payload) => processWithdrawal(rt, withdrawalIdOf(payload)),
    [recoveryJob.task]: async () => {
      // Rescheduled first, so a failing sweep can never end the cycle.
      await scheduleRecovery(rt.pool, new Date(Date.now() + rt.config.withdrawalSweepEveryMs));
      await recoverStuckWithdrawals(rt);
    },
  };
}
