import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';
import { REQUEST_TASK, requestProviderRefund } from './refund-settlement.js';

export function refundTasks(rt: Runtime): TaskList {
  return {
    [REQUEST_TASK]: async (payload) => requestProviderRefund(rt, (payload as { refundId: string }).refundId),
  };
}
