import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import type { Runtime } from '../runtime.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import { CustomerCreateBody, CustomerListQuery, CustomerParams, CustomerSchema } from './customer.schemas.js';
import { createCustomer, deleteCustomer, getCustomer, listCustomers } from './customer.service.js';

const tags = ['customers'];

/** docs/contract/customers.md#customers: customers of the authenticated merchant; no route edits one (delete and create again). */
export function customerRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/customers', {
      onRequest: requirePermission('operate'),
      schema: { tags, body: CustomerCreateBody, response: { 201: Envelope(CustomerSchema), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) => {
      const customer = await createCustomer(rt.pool, req.auth!.merchant.id, req.body, req.idempotency);
      return reply.code(201).send(ok(customer));
    });

    app.get('/customers', {
      schema: { tags, querystring: CustomerListQuery, response: { 200: ListEnvelope(CustomerSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listCustomers(rt.pool, rt.cursors, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/customers/:id', {
      schema: { tags, params: CustomerParams, response: { 200: Envelope(CustomerSchema), ...errorResponses } },
    }, async (req) => ok(await getCustomer(rt.pool, req.auth!.merchant.id, req.params.id)));

    app.delete('/customers/:id', {
      onRequest: requirePermission('operate'),
      schema: { tags, params: CustomerParams, response: { 200: Envelope(Type.Null()), ...errorResponses } },
    }, async (req) => {
      await deleteCustomer(rt.pool, req.auth!.merchant.id, req.params.id);
      return ok(null);
    });
  };
}
