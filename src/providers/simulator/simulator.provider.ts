import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../port/provider.port.js';
import { simulatedCharges, simulatePayment, simulatorChargeTasks } from './sim-charges.provider.js';
import { simulatedPayouts, simulatorPayoutTasks } from './sim-payouts.provider.js';
import { simulatedUnmatched, simulatorPixTasks } from './sim-pix.provider.js';
import { simulatorMerchantRoutes } from './sim-merchant.routes.js';
import { simulatorPayerRoutes } from './sim-payer.routes.js';
import { payloadSigner } from './sim-payload.crypto.js';
import { simulatorRoutes } from './simulator.routes.js';
import { simulatedRecurrences, simulatorSubscriptionTasks } from './sim-subscriptions.provider.js';

/**
 * The default provider: an embedded PIX network. Charges get a static BR Code (a due-date charge a dynamic
 * one, whose payload the simulator serves as its PSP would: sim-cobv.provider.ts); payments, refund
 * results, payout results and disputes (MED) arrive when driven through /admin/simulator or after the
 * configured delays, through the same idempotent core functions a real PSP's notifications use. For
 * Pix Automático it is also the payer's bank: authorizations and debits (sim-subscriptions.provider.ts).
 */
export function createSimulator(rt: Runtime): PixProvider {
  const signer = payloadSigner(rt);
  return {
    name: 'simulator',
    ...simulatedCharges(rt),
    ...simulatedPayouts(rt),
    ...simulatedUnmatched(rt),
    ...simulatedRecurrences(rt),
    simulatePayment: async (chargeId) => void (await simulatePayment(rt, chargeId)),
    // The payload signing key is made at first start and kept (docs/contract/due-date-charges.md#payer-payload).
    prepare: async () => void (await signer.jwks()),
    tasks: () => ({ ...simulatorChargeTasks(rt), ...simulatorPayoutTasks(rt), ...simulatorPixTasks(rt), ...simulatorSubscriptionTasks(rt) }),
    routes: { merchant: simulatorMerchantRoutes(rt), admin: simulatorRoutes(rt), payer: simulatorPayerRoutes(rt, signer) },
  };
}
