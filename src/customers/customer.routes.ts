import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import type { Runtime } from '../runtime.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import { CustomerCreateBody, CustomerListQuery, CustomerParams, CustomerSchema } from './customer.schemas.js';
import { createCustomer, deleteCustomer, getCustomer, listCustomers } from './customer.service.js';

const tags = ['customers'];
type Params = Static<typeof CustomerParams>;

/** docs/contract/customers.md#customers: customers of the authenticated merchant; no route edits one (delete and create again). */
export function customerRoutes(rt: Runtime) {
  return async (app: FastifyInstance) => {
    app.post('/customers', {
      onRequest: requirePermission('operate'),
      schema: { tags, body: CustomerCreateBody, response: { 201: Envelope(CustomerSchema), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) => {
      const customer = await createCustomer(rt.pool, req.auth!.merchant.id, req.body as Static<typeof CustomerCreateBody>, req.idempotency);
      return reply.code(201).send(ok(customer));
    });

    app.get('/customers', {
      schema: { tags, querystring: CustomerListQuery, response: { 200: ListEnvelope(CustomerSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listCustomers(rt.pool, rt.cursors, req.auth!.merchant.id, req.query as Static<typeof CustomerListQuery>);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/customers/:id', {
      schema: { tags, params: CustomerParams, response: { 200: Envelope(CustomerSchema), ...errorResponses } },
    }, async (req) => ok(await getCustomer(rt.pool, req.auth!.merchant.id, (req.params as Params).id)));

    app.delete('/customers/:id', {
      onRequest: requirePermission('operate'),
      schema: { tags, params: CustomerParams, response: { 200: Envelope(Type.Null()), ...errorResponses } },
    }, async (req) => {
      await deleteCustomer(rt.pool, req.auth!.merchant.id, (req.params as Params).id);
      return ok(null);
    });
  };
}
