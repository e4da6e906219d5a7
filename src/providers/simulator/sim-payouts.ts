import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../provider.js';

export function simulatedPayouts(_rt: Runtime): Pick<PixProvider, 'sendPayout' | 'getPayout'> {
  const todo = () => Promise.reject(new Error('simulator: not implemented yet'));
  return { sendPayout: todo, getPayout: todo };
}
