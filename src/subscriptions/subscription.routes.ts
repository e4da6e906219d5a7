import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { ChargeCreatedSchema, ChargeListItemSchema } from '../charges/charge.schemas.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import {
  CycleChargeBody, SubscriptionChargesQuery, SubscriptionCreateBody, SubscriptionListQuery, SubscriptionParams, SubscriptionSchema,
} from './subscription.schemas.js';
import { createVariableCycleCharge } from './subscription-cycle.service.js';
import {
  cancelSubscription, createSubscription, getSubscription, listSubscriptionCharges, listSubscriptions,
} from './subscription.service.js';

const tags = ['subscriptions'];
const One = { 200: Envelope(SubscriptionSchema), ...errorResponses };

/**
 * Subscriptions on Pix Automático (docs/contract/subscriptions.md#subscriptions): creating one, or a variable cycle's
 * charge, is like creating a charge; cancelling one is like a refund (docs/contract/access.md#roles).
 */
export function subscriptionRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/subscriptions', {
      onRequest: requirePermission('operate'),
      schema: { tags, body: SubscriptionCreateBody, response: { 201: Envelope(SubscriptionSchema), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) => reply.code(201).send(ok(await createSubscription(rt, req.auth!.merchant, req.body, req.idempotency))));

    app.get('/subscriptions', {
      schema: { tags, querystring: SubscriptionListQuery, response: { 200: ListEnvelope(SubscriptionSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listSubscriptions(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/subscriptions/:id', { schema: { tags, params: SubscriptionParams, response: One } },
      async (req) => ok(await getSubscription(rt, req.auth!.merchant.id, req.params.id)));

    app.get('/subscriptions/:id/charges', {
      schema: { tags, params: SubscriptionParams, querystring: SubscriptionChargesQuery, response: { 200: ListEnvelope(ChargeListItemSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listSubscriptionCharges(rt, req.auth!.merchant.id, req.params.id, req.query as PageRequest);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.post('/subscriptions/:id/charges', {
      onRequest: requirePermission('operate'),
      schema: { tags, params: SubscriptionParams, body: CycleChargeBody, response: { 201: Envelope(ChargeCreatedSchema), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) =>
      reply.code(201).send(ok(await createVariableCycleCharge(rt, req.auth!.merchant, req.params.id, req.body, req.idempotency))));

    app.post('/subscriptions/:id/cancel', {
      onRequest: requirePermission('money'),
      schema: { tags, params: SubscriptionParams, response: One },
    }, async (req) => ok(await cancelSubscription(rt, req.auth!.merchant.id, req.params.id, req.idempotency)));
  };
}
