import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { simulatorChargeRoutes } from './sim-charges.routes.js';
import { simulatorPayoutRoutes } from './sim-payouts.routes.js';
import { simulatorPixRoutes } from './sim-pix.routes.js';
import { simulatorSubscriptionRoutes } from './sim-subscriptions.routes.js';

/** `/admin/simulator/...` controls (docs/contract/operator.md#simulator); registered only while the simulator is the provider. */
export function simulatorRoutes(rt: Runtime) {
  return async (app: FastifyInstance) => {
    await app.register(simulatorChargeRoutes(rt));
    await app.register(simulatorPayoutRoutes(rt));
    await app.register(simulatorPixRoutes(rt));
    await app.register(simulatorSubscriptionRoutes(rt));
  };
}
