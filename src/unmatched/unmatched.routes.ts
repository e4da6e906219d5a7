import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { UnmatchedIdParams, UnmatchedListQuery, UnmatchedPaymentSchema } from './unmatched.schemas.js';
import { listUnmatchedPayments, refundUnmatchedPayment } from './unmatched.service.js';

const tags = ['admin'];
const security = [{ adminToken: [] }];

/** Operator API (docs/contract/psp.md#unmatched-payments), under /admin behind ADMIN_TOKEN; the CLI calls the same services. */
export function unmatchedRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/unmatched-payments', {
      schema: { tags, security, querystring: UnmatchedListQuery, response: { 200: ListEnvelope(UnmatchedPaymentSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listUnmatchedPayments(rt.pool, rt.cursors, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.post('/unmatched-payments/:id/refund', {
      schema: { tags, security, params: UnmatchedIdParams, response: { 200: Envelope(UnmatchedPaymentSchema), ...errorResponses } },
    }, async (req) => ok(await refundUnmatchedPayment(rt, req.params.id)));
  };
}
