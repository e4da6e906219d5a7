import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { DisputeResolveBody, DisputeSchema } from './dispute.schemas.js';
import { openDispute, resolveDispute } from './dispute.service.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const tags = ['admin'];
const security = [{ adminToken: [] }];
const DisputeAnswer = { 200: Envelope(DisputeSchema), ...errorResponses };

/**
 * Operator disputes for any provider (docs/contract/operator.md#operator-disputes), under /admin: an infraction (MED) the PSP reports
 * out of band — by e-mail, in its portal — is entered here. Same bodies and answers as the simulator's
 * dispute controls, through the same service.
 */
export function adminDisputeRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/charges/:id/disputes', { schema: { tags, security, params: IdParams, response: DisputeAnswer } }, async (req) =>
      ok(await openDispute(rt, { chargeId: req.params.id })));

    app.post('/disputes/:id/resolve', {
      schema: { tags, security, params: IdParams, body: DisputeResolveBody, response: DisputeAnswer },
    }, async (req) =>
      ok(await resolveDispute(rt, req.params.id, req.body.outcome)));
  };
}
