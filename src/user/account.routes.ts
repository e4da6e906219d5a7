import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assertSession, requireSession, sessionSecurity } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { changePassword, confirmTotp, disableTotp, enrolTotp, type SessionUser } from './account.service.js';
import { sealedReplay } from '../auth/sealed-answer.crypto.js';
import { CodeBody, PasswordBody, TotpEnrolmentSchema, UserSchema } from './user.schemas.js';

const tags = ['account'];
const UserAnswer = { 200: Envelope(UserSchema), ...errorResponses };

function me(req: FastifyRequest): SessionUser {
  const caller = req.auth!.caller;
  assertSession(caller);
  return { userId: caller.userId, sessionId: caller.sessionId };
}

/** The logged-in user's own password and TOTP (every role; a session, not an API key). */
export function accountRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const onRequest = requireSession('read');

    // The stored request fingerprint is an HMAC under a server key (platform/http/idempotency.ts), so the
    // passwords in this body cannot be guessed from it.
    app.post('/me/password', { onRequest, schema: { tags, security: sessionSecurity, body: PasswordBody, response: UserAnswer } },
      async (req) => ok(await changePassword(rt, me(req), req.body, req.idempotency)));

    app.post('/me/totp', {
      onRequest,
      schema: { tags, security: sessionSecurity, response: { 200: Envelope(TotpEnrolmentSchema), ...errorResponses } },
      config: { idempotency: sealedReplay(rt.config.encryptionKey) },
    }, async (req) => ok(await enrolTotp(rt, me(req), req.idempotency)));

    app.post('/me/totp/confirm', { onRequest, schema: { tags, security: sessionSecurity, body: CodeBody, response: UserAnswer } },
      async (req) => ok(await confirmTotp(rt, me(req), req.body.code, req.idempotency)));

    app.delete('/me/totp', { onRequest, schema: { tags, security: sessionSecurity, body: CodeBody, response: UserAnswer } },
      async (req) => ok(await disableTotp(rt, me(req), req.body.code)));
  };
}
