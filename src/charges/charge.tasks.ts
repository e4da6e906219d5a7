import type { TaskList } from 'graphile-worker';
import { enqueue } from '../platform/jobs.js';
import { recoverPendingRefunds } from '../refunds/refund-settlement.js';
import { refundTasks } from '../refunds/refund.tasks.js';
import type { Runtime } from '../runtime.js';
import { EXPIRE_TASK, expireCharge, expiryJob } from './charge-expiry.js';
import { selectOverdueExpiries } from './charge.sql.js';

const RECOVER_TASK = 'charges.recover';

/**
 * Queued when a worker starts: one recovery sweep re-enqueues work whose job was lost (a refund stuck
 * PENDING, an overdue expiry) — a dead worker's jobs stay locked for hours. Every task it re-enqueues
 * is safe to run twice, and job keys keep it from duplicating jobs that are still queued.
 */
export const scheduleChargeRecovery = (rt: Runtime) => enqueue(rt.pool, RECOVER_TASK, {}, { jobKey: RECOVER_TASK, maxAttempts: 5 });

/** Background tasks of charges and refunds. */
export function chargeTasks(rt: Runtime): TaskList {
  return {
    [EXPIRE_TASK]: async (payload) => expireCharge(rt, (payload as { chargeId: string }).chargeId),
    [RECOVER_TASK]: async () => {
      for (const id of await selectOverdueExpiries(rt.pool)) await enqueue(rt.pool, EXPIRE_TASK, { chargeId: id }, expiryJob(id, new Date()));
      await recoverPendingRefunds(rt);
    },
    ...refundTasks(rt),
  };
}
