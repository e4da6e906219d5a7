import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../provider.js';
import { simulatedCharges, simulatorChargeTasks } from './sim-charges.js';
import { simulatedPayouts, simulatorPayoutTasks } from './sim-payouts.js';
import { simulatedUnmatched, simulatorPixTasks } from './sim-pix.js';

/**
 * The default provider: an embedded PIX network. Charges get a static BR Code; payments, refund
 * results, payout results and disputes (MED) arrive when driven through /admin/simulator or after the
 * configured delays, through the same idempotent core functions a real PSP's notifications use.
 */
export function createSimulator(rt: Runtime): PixProvider {
  return {
    name: 'simulator',
    ...simulatedCharges(rt),
    ...simulatedPayouts(rt),
    ...simulatedUnmatched(rt),
    tasks: () => ({ ...simulatorChargeTasks(rt), ...simulatorPayoutTasks(rt), ...simulatorPixTasks(rt) }),
  };
}
