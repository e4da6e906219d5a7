import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import rateLimit from '@fastify/rate-limit';
import sjson from 'secure-json-parse';
import type pg from 'pg';
import type { Config } from './config.js';
import { adminRoutes } from './admin/admin.routes.js';
import { adminAuth, merchantAuth } from './auth/auth.hooks.js';
import { AppError } from './platform/errors.js';
import { ErrorEnvelope } from './platform/http/envelope.js';
import { errorHandler, notFoundHandler } from './platform/http/error-handler.js';
import { registerIdempotency } from './platform/http/idempotency.js';
import { validatorCompiler } from './platform/http/validation.js';
import type { Cursors } from './platform/pagination.js';
import { storeRoutes } from './store/store.routes.js';

export interface AppDeps {
  config: Config;
  pool: pg.Pool;
  cursors: Cursors;
  /** Whether migrations have run; /health answers 503 until then. */
  ready?: () => boolean;
}

const ONE_MIB = 1024 * 1024;

// Logs never carry API keys, secrets, full tax ids or PIX keys (the logging rule).
const REDACT = [
  'req.headers.authorization', 'req.headers["idempotency-key"]', '*.secret', '*.key', '*.pixKey', '*.taxId', '*.token',
];

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, pool, cursors } = deps;
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: ONE_MIB,
    return503OnClosing: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // An empty body with a JSON content type is a request without a body (decisions part 14).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(new AppError('VALIDATION_ERROR', 'body: invalid JSON'), undefined);
    }
  });
  app.addSchema(ErrorEnvelope);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Pixgate', version: '1.0.0-beta', description: 'PIX payments API: charges, refunds, customers, withdrawals, webhooks.' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Merchant API key (pxg_...)' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator ADMIN_TOKEN' },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/health', { schema: { tags: ['health'], security: [] } }, async (_req, reply) => {
    const up = (deps.ready?.() ?? true) && (await pool.query('SELECT 1').then(() => true, () => false));
    return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable' });
  });

  await app.register(async (merchantApi) => {
    merchantApi.addHook('onRequest', merchantAuth(pool));
    if (config.rateLimitPerSecond > 0) {
      await merchantApi.register(rateLimit, {
        max: config.rateLimitPerSecond,
        timeWindow: 1000,
        hook: 'onRequest',
        keyGenerator: (req) => req.auth?.keyId ?? req.ip,
        errorResponseBuilder: (_req, ctx) => new AppError('RATE_LIMITED', `Rate limit of ${ctx.max} requests per second exceeded`),
      });
    }
    registerIdempotency(merchantApi, pool);
    await merchantApi.register(storeRoutes(pool));
  });

  await app.register(async (admin) => {
    admin.addHook('onRequest', adminAuth(config.adminToken));
    await admin.register(adminRoutes(pool, cursors));
  }, { prefix: '/admin' });

  return app;
}
