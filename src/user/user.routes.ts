import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireSession, sessionSecurity } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { sealedReplay } from '../auth/sealed-answer.crypto.js';
import { InviteBody, InvitedSchema, RoleBody, UserIdParams, UserListQuery, UserSchema } from './user.schemas.js';
import { changeRole, inviteUser, listUsers, removeUser } from './user.service.js';

const tags = ['team'];

/** `/me/users`: the merchant's team. Reads for every role; changes for OWNERs. */
export function userRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/me/users', {
      onRequest: requireSession('team'),
      schema: { tags, security: sessionSecurity, body: InviteBody, response: { 201: Envelope(InvitedSchema), ...errorResponses } },
      // The answer carries the invitation link: stored sealed for a replay, never in clear.
      config: { successStatus: 201, idempotency: sealedReplay(rt.config.encryptionKey) },
    }, async (req, reply) => reply.code(201).send(ok(await inviteUser(rt, req.auth!.merchant.id, req.body, req.idempotency))));

    app.get('/me/users', {
      onRequest: requireSession('read'),
      schema: { tags, security: sessionSecurity, querystring: UserListQuery, response: { 200: ListEnvelope(UserSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listUsers(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.patch('/me/users/:id', {
      onRequest: requireSession('team'),
      schema: { tags, security: sessionSecurity, params: UserIdParams, body: RoleBody, response: { 200: Envelope(UserSchema), ...errorResponses } },
    }, async (req) => ok(await changeRole(rt, req.auth!.merchant.id, req.params.id, req.body.role)));

    app.delete('/me/users/:id', {
      onRequest: requireSession('team'),
      schema: { tags, security: sessionSecurity, params: UserIdParams, response: { 200: Envelope(Type.Null()), ...errorResponses } },
    }, async (req) => {
      await removeUser(rt, req.auth!.merchant.id, req.params.id);
      return ok(null);
    });
  };
}

/** `POST /admin/merchants/{id}/users`: the operator invites a merchant's first user (any role). */
export function adminUserRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/merchants/:id/users', {
      schema: {
        tags: ['admin'], security: [{ adminToken: [] }], params: UserIdParams, body: InviteBody,
        response: { 201: Envelope(InvitedSchema), ...errorResponses },
      },
    }, async (req, reply) => reply.code(201).send(ok(await inviteUser(rt, req.params.id, req.body))));
  };
}
