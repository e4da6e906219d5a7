import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';

export function simulatorChargeRoutes(_rt: Runtime) {
  return async (_app: FastifyInstance) => {};
}
