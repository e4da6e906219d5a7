import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';
import { EXPIRE_TASK, EXPIRY_SWEEP_TASK, expireCharge, scheduleExpirySweep, sweepExpiries } from './charge-expiry.service.js';

/**
 * Queued when a worker starts: the expiry sweep starts its 30-second cycle (it also recovers overdue
 * expiries). Every task it enqueues is safe to run twice, and job keys keep it from duplicating jobs
 * that are still queued.
 */
export const scheduleChargeExpiry = (rt: Runtime) => scheduleExpirySweep(rt.pool);

export function chargeTasks(rt: Runtime): TaskList {
  return {
    [EXPIRE_TASK]: async (payload) => expireCharge(rt, (payload as { chargeId: string }).chargeId),
    [EXPIRY_SWEEP_TASK]: () => sweepExpiries(rt),
  };
}
