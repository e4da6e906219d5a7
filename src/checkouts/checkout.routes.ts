import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { CheckoutCreateBody, CheckoutListQuery, CheckoutParams } from './checkout.schemas.js';
import { CheckoutDetailSchema, CheckoutSchema } from './object/checkout.schemas.js';
import { createCheckout, getCheckout, listCheckouts, refundCheckout } from './checkout.service.js';

const tags = ['checkouts'];
type Params = Static<typeof CheckoutParams>;

/** docs/contract/checkouts.md#checkouts: creating one is like creating a charge; its refund like a refund. */
export function checkoutRoutes(rt: Runtime) {
  return async (app: FastifyInstance) => {
    app.post('/checkouts', {
      onRequest: requirePermission('operate'),
      schema: { tags, body: CheckoutCreateBody, response: { 201: Envelope(CheckoutSchema), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) => {
      const checkout = await createCheckout(rt, req.auth!.merchant, req.body as Static<typeof CheckoutCreateBody>, req.idempotency);
      return reply.code(201).send(ok(checkout));
    });

    app.get('/checkouts', {
      schema: { tags, querystring: CheckoutListQuery, response: { 200: ListEnvelope(CheckoutSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listCheckouts(rt, req.auth!.merchant.id, req.query as Static<typeof CheckoutListQuery>);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/checkouts/:id', {
      schema: { tags, params: CheckoutParams, response: { 200: Envelope(CheckoutDetailSchema), ...errorResponses } },
    }, async (req) => ok(await getCheckout(rt, req.auth!.merchant.id, (req.params as Params).id)));

    app.post('/checkouts/:id/refund', {
      onRequest: requirePermission('money'),
      schema: { tags, params: CheckoutParams, response: { 200: Envelope(CheckoutDetailSchema), ...errorResponses } },
    }, async (req) => ok(await refundCheckout(rt, req.auth!.merchant.id, (req.params as Params).id, req.idempotency)));
  };
}
