import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../provider.js';

export function simulatedCharges(_rt: Runtime): Pick<PixProvider, 'createCharge' | 'requestRefund'> {
  const todo = () => Promise.reject(new Error('simulator: not implemented yet'));
  return { createCharge: todo, requestRefund: todo };
}
