import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';

export function simulatorPayoutRoutes(_rt: Runtime) {
  return async (_app: FastifyInstance) => {};
}
