import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { issueApiKey, revokeApiKey } from '../auth/api-key.service.js';
import { CreatedBy, KeyRole } from '../auth/api-key.schemas.js';
import { MerchantCreateBody, MerchantPatchBody, MerchantSchema } from '../merchants/merchant.schemas.js';
import { createMerchant, getMerchant, listMerchants, patchMerchant } from '../merchants/merchant.service.js';
import { Envelope, errorResponses, ListEnvelope, ok, Timestamp } from '../platform/http/envelope.js';
import { PageQuery, type Cursors } from '../platform/pagination.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
// Every key object shows its role and maker (docs/contract/access.md#key-roles): the operator's are FULL, made by no user.
const IssuedKey = Type.Object({ id: Type.String(), key: Type.String(), last4: Type.String(), role: KeyRole, createdBy: CreatedBy, createdAt: Timestamp });
const RevokedKey = Type.Object({
  id: Type.String(), merchantId: Type.String(), last4: Type.String(), role: KeyRole, createdBy: CreatedBy, createdAt: Timestamp, revokedAt: Timestamp,
});
const tags = ['admin'];
const security = [{ adminToken: [] }];

/** Operator API (docs/contract/operator.md#operator-api), behind ADMIN_TOKEN; the CLI calls the same services. */
export function adminRoutes(pool: pg.Pool, cursors: Cursors) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/merchants', {
      schema: { tags, security, body: MerchantCreateBody, response: { 201: Envelope(MerchantSchema), ...errorResponses } },
    }, async (req, reply) => reply.code(201).send(ok(await createMerchant(pool, req.body))));

    app.get('/merchants', {
      schema: { tags, security, querystring: Type.Object(PageQuery), response: { 200: ListEnvelope(MerchantSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listMerchants(pool, cursors, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/merchants/:id', {
      schema: { tags, security, params: IdParams, response: { 200: Envelope(MerchantSchema), ...errorResponses } },
    }, async (req) => ok(await getMerchant(pool, req.params.id)));

    app.patch('/merchants/:id', {
      schema: { tags, security, params: IdParams, body: MerchantPatchBody, response: { 200: Envelope(MerchantSchema), ...errorResponses } },
    }, async (req) => ok(await patchMerchant(pool, req.params.id, req.body)));

    app.post('/merchants/:id/api-keys', {
      schema: { tags, security, params: IdParams, response: { 201: Envelope(IssuedKey), ...errorResponses } },
    }, async (req, reply) => reply.code(201).send(ok(await issueApiKey(pool, req.params.id))));

    app.delete('/api-keys/:id', {
      schema: { tags, security, params: IdParams, response: { 200: Envelope(RevokedKey), ...errorResponses } },
    }, async (req) => ok(await revokeApiKey(pool, req.params.id)));
  };
}
