import type { Executor } from '../platform/db.js';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { processJob } from './withdrawal-processing.service.js';
import { selectStuckWithdrawalIds } from './withdrawal.sql.js';

/**
 * graphile-worker keeps the job of a worker that died locked for 4 hours, so its own retry cannot be
 * what finishes a withdrawal after a crash. This sweep re-enqueues processing for open withdrawals
 * that have not changed state for STUCK_AFTER_MS; processing is idempotent, so a withdrawal that was
 * merely slow loses nothing (a PROCESSING one just asks the provider again, which also recovers a
 * lost provider notification). It runs when a worker starts and then every SWEEP_EVERY_MS.
 */
export const STUCK_AFTER_MS = 60_000;
export const SWEEP_EVERY_MS = 30_000;
const SWEEP_BATCH = 500;

/** One job key for the sweep: every worker start and every reschedule replaces the waiting one. */
export const recoveryJob = { task: 'withdrawal:recover', key: 'withdrawal:recover' };

export const scheduleRecovery = (db: Executor, runAt?: Date) => enqueue(db, recoveryJob.task, {}, { jobKey: recoveryJob.key, runAt });

/** Re-enqueues processing of stuck withdrawals; returns their ids. */
export async function recoverStuckWithdrawals(rt: Runtime, olderThanMs = STUCK_AFTER_MS): Promise<string[]> {
  const ids = await selectStuckWithdrawalIds(rt.pool, olderThanMs, SWEEP_BATCH);
  // Adding a job under the key of one locked by a dead worker creates a fresh job and retires the old
  // one (graphile-worker's add_job), so the dead worker's job cannot run again when its lock expires.
  for (const id of ids) await enqueue(rt.pool, processJob.task, { withdrawalId: id }, { jobKey: processJob.key(id) });
  return ids;
}
