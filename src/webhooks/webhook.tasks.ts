import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';

export function webhookTasks(_rt: Runtime): TaskList {
  return {};
}
