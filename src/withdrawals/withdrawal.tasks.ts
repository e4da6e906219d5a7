import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';

export function withdrawalTasks(_rt: Runtime): TaskList {
  return {};
}
