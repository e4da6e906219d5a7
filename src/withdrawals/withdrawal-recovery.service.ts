import type { Executor } from '../platform/db.js';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { enqueueProcessing } from './withdrawal-processing.service.js';
import { selectStuckWithdrawalIds } from './withdrawal.sql.js';

/**
 * A job taken by a worker that died may stay locked, so its own retry cannot be what finishes a
 * withdrawal after a crash. This sweep re-enqueues processing for open withdrawals that have not changed
 * state for WITHDRAWAL_STUCK_AFTER_MS (default 60 s); processing is idempotent, so a withdrawal that was
 * merely slow loses nothing (a PROCESSING one just asks the provider again, which also recovers a lost
 * provider notification), and a job beside one still running leaves at once: one runner per withdrawal
 * (processWithdrawal). It runs when a worker starts and then every WITHDRAWAL_SWEEP_INTERVAL_MS (default 30 s).
 */
const SWEEP_BATCH = 500;

/** One job key for the sweep: every worker start and every reschedule replaces the waiting one. */
export const recoveryJob = { task: 'withdrawal:recover', key: 'withdrawal:recover' };

export const scheduleRecovery = (db: Executor, runAt?: Date) => enqueue(db, recoveryJob.task, {}, { jobKey: recoveryJob.key, runAt });

/** Re-enqueues processing of stuck withdrawals; returns their ids. */
export async function recoverStuckWithdrawals(rt: Runtime): Promise<string[]> {
  const ids = await selectStuckWithdrawalIds(rt.pool, rt.config.withdrawalStuckAfterMs, SWEEP_BATCH);
  // Adding a job under the key of one locked by a dead worker creates a fresh job and retires the old
  // one (graphile-worker's add_job), so the dead worker's job cannot run again when its lock expires.
  for (const id of ids) await enqueueProcessing(rt.pool, id);
  return ids;
}
