import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { ChargeCheckSchema, ChargeIdQuery } from '../charges/charge.schemas.js';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { refundCharge } from './refund.service.js';

/** POST /transparents/refund?id= — no body; answers 200 with the charge as check shows it, carrying `refund`. */
export function refundRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/transparents/refund', {
      onRequest: requirePermission('money'),
      schema: { tags: ['charges'], querystring: ChargeIdQuery, response: { 200: Envelope(ChargeCheckSchema), ...errorResponses } },
    }, async (req) => ok(await refundCharge(rt, req.auth!.merchant.id, req.query.id, req.idempotency)));
  };
}
