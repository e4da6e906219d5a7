import type { TaskList } from 'graphile-worker';
import { enqueue } from '../platform/jobs.js';
import { simulatorChargeTasks } from '../providers/simulator/sim-charges.js';
import { recoverPendingRefunds } from '../refunds/refund-settlement.js';
import { refundTasks } from '../refunds/refund.tasks.js';
import type { Runtime } from '../runtime.js';
import { EXPIRE_TASK, expireCharge, expiryJob } from './charge-expiry.js';
import { selectOverdueExpiries } from './charge.sql.js';

const RECOVER_TASK = 'charges.recover';

/**
 * Background tasks of charges, refunds and (while it is the provider) the simulator's charge side.
 * Building the list means a worker is starting: queue one recovery sweep, which re-enqueues work
 * whose job was lost (a refund stuck PENDING, an overdue expiry). Every task it re-enqueues is safe
 * to run twice, and job keys keep the sweep from duplicating jobs that are still queued.
 */
export function chargeTasks(rt: Runtime): TaskList {
  enqueue(rt.pool, RECOVER_TASK, {}, { jobKey: RECOVER_TASK, maxAttempts: 5 }).catch(() => {
    // Best effort: the database is not reachable yet; the next worker start sweeps again.
  });
  return {
    [EXPIRE_TASK]: async (payload) => expireCharge(rt, (payload as { chargeId: string }).chargeId),
    [RECOVER_TASK]: async () => {
      for (const id of await selectOverdueExpiries(rt.pool)) await enqueue(rt.pool, EXPIRE_TASK, { chargeId: id }, expiryJob(id, new Date()));
      await recoverPendingRefunds(rt);
    },
    ...refundTasks(rt),
    ...(rt.provider.name === 'simulator' ? simulatorChargeTasks(rt) : {}),
  };
}
