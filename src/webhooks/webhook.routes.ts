import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import {
  CreatedEndpointSchema, CreateEndpointBody, DeliverySchema, EndpointSchema, IdParams, ListQuery,
} from './webhook.schemas.js';
import {
  createEndpoint, deleteEndpoint, getEndpoint, listDeliveries, listEndpoints, restoreSecret, type CreatedEndpoint,
} from './webhook.service.js';

const tags = ['webhooks'];

/** docs/contract/webhooks.md#webhook-endpoints */
export function webhookRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/webhooks', {
      onRequest: requirePermission('developer'),
      schema: { tags, body: CreateEndpointBody, response: { 201: Envelope(CreatedEndpointSchema), ...errorResponses } },
      config: {
        successStatus: 201,
        // The stored answer never holds the secret in clear; a replay reads it back from its encrypted store.
        idempotency: {
          redact: (data) => {
            const { secret: _secret, ...endpoint } = data as CreatedEndpoint;
            return endpoint;
          },
          restore: (merchantId, data) => restoreSecret(rt, merchantId, data),
        },
      },
    }, async (req, reply) => {
      const created = await createEndpoint(rt, req.auth!.merchant.id, req.body, req.idempotency);
      return reply.code(201).send(ok(created));
    });

    app.get('/webhooks', {
      schema: { tags, querystring: ListQuery, response: { 200: ListEnvelope(EndpointSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listEndpoints(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/webhooks/:id', {
      schema: { tags, params: IdParams, response: { 200: Envelope(EndpointSchema), ...errorResponses } },
    }, async (req) => ok(await getEndpoint(rt, req.auth!.merchant.id, req.params.id)));

    app.delete('/webhooks/:id', {
      onRequest: requirePermission('developer'),
      schema: { tags, params: IdParams, response: { 200: Envelope(Type.Null()), ...errorResponses } },
    }, async (req) => {
      await deleteEndpoint(rt, req.auth!.merchant.id, req.params.id);
      return ok(null);
    });

    app.get('/webhooks/:id/deliveries', {
      schema: { tags, params: IdParams, querystring: ListQuery, response: { 200: ListEnvelope(DeliverySchema), ...errorResponses } },
    }, async (req) => {
      const page = await listDeliveries(rt, req.auth!.merchant.id, req.params.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });
  };
}
