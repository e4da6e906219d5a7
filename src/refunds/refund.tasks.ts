import type { TaskList } from 'graphile-worker';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { recoverPendingRefunds, REQUEST_TASK, requestProviderRefund } from './refund-settlement.service.js';

// Named when refunds were part of charges: queued jobs carry the name, so it stays.
const RECOVER_TASK = 'charges.recover';

/**
 * Queued when a worker starts: one recovery sweep re-enqueues the requests of refunds stuck PENDING (a
 * dead worker's jobs stay locked for hours). Safe to run twice; its job key keeps it from duplicating
 * a sweep still queued.
 */
export const scheduleRefundRecovery = (rt: Runtime) => enqueue(rt.pool, RECOVER_TASK, {}, { jobKey: RECOVER_TASK, maxAttempts: 5 });

export function refundTasks(rt: Runtime): TaskList {
  return {
    [REQUEST_TASK]: async (payload) => requestProviderRefund(rt, (payload as { refundId: string }).refundId),
    [RECOVER_TASK]: () => recoverPendingRefunds(rt),
  };
}
