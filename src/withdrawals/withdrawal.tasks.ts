import type { TaskList } from 'graphile-worker';
import { simulatorPayoutTasks } from '../providers/simulator/sim-payouts.js';
import type { Runtime } from '../runtime.js';
import { processJob, processWithdrawal } from './withdrawal.processing.js';
import { recoverStuckWithdrawals, recoveryJob, scheduleRecovery, SWEEP_EVERY_MS } from './withdrawal.recovery.js';

function withdrawalIdOf(payload: unknown): string {
  const id = (payload as { withdrawalId?: unknown } | null)?.withdrawalId;
  if (typeof id !== 'string') throw new Error('withdrawal job payload without withdrawalId');
  return id;
}

export function withdrawalTasks(rt: Runtime): TaskList {
  // The task list is built as a worker starts: that is when a recovery sweep must run, because the
  // jobs of a worker that died (this one's previous life included) stay locked for hours.
  scheduleRecovery(rt.pool).catch(() => {});
  return {
    [processJob.task]: (payload) => processWithdrawal(rt, withdrawalIdOf(payload)),
    [recoveryJob.task]: async () => {
      // Rescheduled first, so a failing sweep can never end the cycle.
      await scheduleRecovery(rt.pool, new Date(Date.now() + SWEEP_EVERY_MS));
      await recoverStuckWithdrawals(rt);
    },
    // The simulator's own jobs (payout settlement) until the runtime composes provider tasks itself.
    ...(rt.provider.name === 'simulator' ? simulatorPayoutTasks(rt) : {}),
  };
}
