import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';
import { withStatement } from '../platform/db.js';
import type { Runtime } from '../runtime.js';
import { sealedReplay } from './sealed-answer.crypto.js';
import { issueOwnApiKey, listApiKeys, revokeOwnApiKey, type IssuedApiKey } from './api-key.service.js';
import { CreateBody, IssuedKey, KeyView } from './api-key.schemas.js';
import { assertSession, requireSession, sessionSecurity } from './permission.rules.js';

const tags = ['api-keys'];
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Self-service API keys (docs/contract/access.md#api-keys): OWNER and DEVELOPER, with a session — never with an API key; each key with a role (docs/contract/access.md#key-roles). */
export function apiKeyRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const onRequest = requireSession('developer');

    app.post('/me/api-keys', {
      onRequest,
      schema: { tags, security: sessionSecurity, body: CreateBody, response: { 201: Envelope(IssuedKey), ...errorResponses } },
      // The key is shown once: a replay opens the sealed answer; the store never holds it in clear.
      config: { successStatus: 201, idempotency: sealedReplay(rt.config.encryptionKey) },
    }, async (req, reply) => {
      const caller = req.auth!.caller;
      assertSession(caller);
      const issued = await withStatement<IssuedApiKey>(rt.pool, (db) => issueOwnApiKey(db, req.auth!.merchant.id, caller, req.body), req.idempotency);
      return reply.code(201).send(ok(issued));
    });

    app.get('/me/api-keys', {
      onRequest,
      schema: { tags, security: sessionSecurity, querystring: Type.Object(PageQuery), response: { 200: ListEnvelope(KeyView), ...errorResponses } },
    }, async (req) => {
      const page = await listApiKeys(rt.pool, rt.cursors, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.delete('/me/api-keys/:id', {
      onRequest,
      schema: { tags, security: sessionSecurity, params: IdParams, response: { 200: Envelope(KeyView), ...errorResponses } },
    }, async (req) => ok(await revokeOwnApiKey(rt.pool, req.auth!.merchant.id, req.params.id)));
  };
}
