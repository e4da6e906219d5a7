import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import { ContractSchema } from '../merchants/merchant.schemas.js';
import { toContract } from '../merchants/merchant.service.js';

/**
 * `GET /me/contract`: fees and limits for every role and every API key, so a form can show the fee before
 * the first withdrawal. `/me/store` keeps the spec's field set.
 */
export function contractRoutes() {
  return async (app: FastifyInstance) => {
    app.get('/me/contract', {
      onRequest: requirePermission('read'),
      schema: { tags: ['store'], response: { 200: Envelope(ContractSchema), ...errorResponses } },
    }, async (req) => ok(toContract(req.auth!.merchant)));
  };
}
