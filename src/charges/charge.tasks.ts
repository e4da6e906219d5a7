import type { TaskList } from 'graphile-worker';
import { enqueue } from '../platform/jobs.js';
import { recoverPendingRefunds } from '../refunds/refund-settlement.js';
import { refundTasks } from '../refunds/refund.tasks.js';
import type { Runtime } from '../runtime.js';
import { EXPIRE_TASK, EXPIRY_SWEEP_TASK, expireCharge, scheduleExpirySweep, sweepExpiries } from './charge-expiry.js';

const RECOVER_TASK = 'charges.recover';

/**
 * Queued when a worker starts: one recovery sweep re-enqueues the requests of refunds stuck PENDING
 * (a dead worker's jobs stay locked for hours), and the expiry sweep starts its 30-second cycle (it
 * also recovers overdue expiries). Every task they enqueue is safe to run twice, and job keys keep
 * them from duplicating jobs that are still queued.
 */
export const scheduleChargeRecovery = async (rt: Runtime) => {
  await enqueue(rt.pool, RECOVER_TASK, {}, { jobKey: RECOVER_TASK, maxAttempts: 5 });
  await scheduleExpirySweep(rt.pool);
};

/** Background tasks of charges and refunds. */
export function chargeTasks(rt: Runtime): TaskList {
  return {
    [EXPIRE_TASK]: async (payload) => expireCharge(rt, (payload as { chargeId: string }).chargeId),
    [EXPIRY_SWEEP_TASK]: () => sweepExpiries(rt),
    [RECOVER_TASK]: () => recoverPendingRefunds(rt),
    ...refundTasks(rt),
  };
}
