import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../provider.js';

export function createSimulator(_rt: Runtime): PixProvider {
  const todo = () => Promise.reject(new Error('simulator: not implemented yet'));
  return { name: 'simulator', createCharge: todo, requestRefund: todo, sendPayout: todo, getPayout: todo };
}
