import fastifyCookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { authenticateSession, SESSION_COOKIE } from '../auth/auth.hooks.js';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { login, logout } from './login.service.js';
import { acceptInvitation } from './user.service.js';
import { AcceptBody, LoginBody, LoginSchema, TokenParams, UserSchema } from './user.schemas.js';

const tags = ['auth'];
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * `/auth/*`: outside the merchant scope (no API key needed, no Idempotency-Key). Login sets the
 * `pxg_session` cookie: HttpOnly, SameSite=Strict, Path=/, Secure unless the service listens on loopback.
 */
export function loginRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    // Cookies are read by the merchant auth hook only when needed; here the plugin only writes them.
    await fastify.register(fastifyCookie, { hook: false });
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const cookie = { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: !LOOPBACK.test(rt.config.host) };

    app.post('/auth/login', {
      schema: { tags, security: [], body: LoginBody, response: { 200: Envelope(LoginSchema), ...errorResponses } },
    }, async (req, reply) => {
      // req.ip: the client address, behind a proxy as TRUST_PROXY allows (docs/contract/access.md#login-limits).
      const { answer } = await login(rt, req.body, req.ip);
      reply.setCookie(SESSION_COOKIE, answer.token, { ...cookie, expires: new Date(answer.expiresAt) });
      return ok(answer);
    });

    app.post('/auth/logout', {
      // Cookie first: the dashboard logs out with its cookie (and no Idempotency-Key is documented: /auth is outside the merchant scope).
      schema: { tags, security: [{ sessionCookie: [] }, { session: [] }], response: { 200: Envelope(Type.Null()), ...errorResponses } },
    }, async (req, reply) => {
      const { caller } = await authenticateSession(rt.pool, rt.config.encryptionKey, req);
      await logout(rt, caller.sessionId);
      reply.clearCookie(SESSION_COOKIE, cookie);
      return ok(null);
    });

    app.post('/auth/invitations/:token/accept', {
      schema: { tags, security: [], params: TokenParams, body: AcceptBody, response: { 200: Envelope(UserSchema), ...errorResponses } },
    }, async (req) => ok(await acceptInvitation(rt, req.params.token, req.body)));
  };
}
