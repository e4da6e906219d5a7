import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { ChargeCheckSchema } from '../../charges/charge.schemas.js';
import { withImage } from '../../charges/charge.view.js';
import { Envelope, errorResponses, Nullable, ok, StringEnum } from '../../platform/http/envelope.js';
import type { Runtime } from '../../runtime.js';
import { UnmatchedPaymentSchema } from '../../unmatched/unmatched.schemas.js';
import { simulateReceivedPix } from './sim-pix.provider.js';

const PixBody = Type.Object({
  // API Pix money is \d{1,10}\.\d{2}: at most 9999999999.99.
  amount: Type.Integer({ minimum: 1, maximum: 999_999_999_999 }),
  txid: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{1,35}$' })),
  payer: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
    taxId: Type.Optional(Type.String({ minLength: 1, maxLength: 18 })),
  })),
});
const Received = Type.Object({
  result: StringEnum(['CREDITED', 'UNMATCHED'] as const),
  charge: Nullable(ChargeCheckSchema),
  unmatchedPayment: Nullable(UnmatchedPaymentSchema),
});

/** `POST /admin/simulator/pix` (docs/contract/operator.md#simulator): the simulated network receives a PIX. */
export function simulatorPixRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/pix', {
      schema: { tags: ['simulator'], security: [{ adminToken: [] }], body: PixBody, response: { 200: Envelope(Received), ...errorResponses } },
    }, async (req) => {
      const outcome = await simulateReceivedPix(rt, req.body);
      return ok(outcome.kind === 'CREDITED'
        ? { result: outcome.kind, charge: withImage(outcome.charge), unmatchedPayment: null }
        : { result: outcome.kind, charge: null, unmatchedPayment: outcome.unmatchedPayment });
    });
  };
}
