import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../../auth/permission.rules.js';
import { Type } from 'typebox';
import { ChargeCheckSchema, ChargeIdQuery, CivilDateText } from '../../charges/charge.schemas.js';
import { imageNotStored, withImage } from '../../charges/charge.view.js';
import { Envelope, errorResponses, Nullable, ok } from '../../platform/http/envelope.js';
import type { Runtime } from '../../runtime.js';
import { simulatePayment } from './sim-charges.provider.js';

// Optional: a POST without a body arrives as null. `date` pays a due-date charge on that day (docs/contract/due-date-charges.md#simulator).
const SimulatePaymentBody = Nullable(Type.Object({ date: Type.Optional(CivilDateText) }));

/**
 * `POST /transparents/simulate-payment?id=` (docs/contract/charges.md#simulate-payment, AbacatePay's dev mode): a merchant pays
 * its own PENDING charge exactly as `/admin/simulator/charges/{id}/pay` does. Registered only with the simulator.
 */
export function simulatorMerchantRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/transparents/simulate-payment', {
      onRequest: requirePermission('operate'),
      // The stored answer is the charge without its image (as every charge command stores it); a replay draws it again.
      config: { idempotency: imageNotStored },
      schema: {
        tags: ['charges'], querystring: ChargeIdQuery, body: SimulatePaymentBody, response: { 200: Envelope(ChargeCheckSchema), ...errorResponses },
      },
    }, async (req) =>
      // Another merchant's charge is NOT_FOUND, like every other charge route. One QR image: the answer's.
      ok(withImage(await simulatePayment(rt, req.query.id, { date: req.body?.date, hook: req.idempotency, merchantId: req.auth!.merchant.id }))));
  };
}
