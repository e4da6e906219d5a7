import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import type { Runtime } from '../runtime.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import {
  ChargeCheckSchema, ChargeCreateBody, ChargeCreatedSchema, ChargeIdQuery, ChargeListItemSchema, ChargeListQuery,
} from './charge.schemas.js';
import { checkCharge, createCharge, listCharges } from './charge.service.js';
import { imageNotStored } from './charge.view.js';

const tags = ['charges'];

/** The transparent checkout (docs/contract/charges.md#charges). Its refund route lives with refunds (src/refunds/refund.routes.ts). */
export function chargeRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/transparents/create', {
      onRequest: requirePermission('operate'),
      schema: { tags, body: ChargeCreateBody, response: { 201: Envelope(ChargeCreatedSchema), ...errorResponses } },
      config: { successStatus: 201, idempotency: imageNotStored },
    }, async (req, reply) => {
      const charge = await createCharge(rt, req.auth!.merchant, req.body, req.idempotency);
      return reply.code(201).send(ok(charge));
    });

    app.get('/transparents/list', {
      schema: { tags, querystring: ChargeListQuery, response: { 200: ListEnvelope(ChargeListItemSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listCharges(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/transparents/check', {
      schema: { tags, querystring: ChargeIdQuery, response: { 200: Envelope(ChargeCheckSchema), ...errorResponses } },
    }, async (req) => ok(await checkCharge(rt.pool, req.auth!.merchant.id, req.query.id)));
  };
}
