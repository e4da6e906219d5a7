import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import rateLimit from '@fastify/rate-limit';
import sjson from 'secure-json-parse';
import { adminRoutes } from './admin/admin.routes.js';
import { adminAuth, merchantAuth } from './auth/auth.hooks.js';
import { AppError } from './platform/errors.js';
import { ErrorEnvelope } from './platform/http/envelope.js';
import { errorHandler, notFoundHandler, routingErrorHandler } from './platform/http/error-handler.js';
import { documentIdempotencyKey, registerIdempotency } from './platform/http/idempotency.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './platform/http/json-depth.js';
import { validatorCompiler } from './platform/http/validation.js';
import { storeRoutes } from './store/store.routes.js';
import { customerRoutes } from './customers/customer.routes.js';
import { chargeRoutes } from './charges/charge.routes.js';
import { withdrawalRoutes } from './withdrawals/withdrawal.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { simulatorRoutes } from './providers/simulator/simulator.routes.js';
import { apiPixWebhookRoutes } from './providers/api-pix/api-pix-webhook.routes.js';
import type { Runtime } from './runtime.js';

const ONE_MIB = 1024 * 1024;

// Logs never carry API keys, secrets, full tax ids or PIX keys (the logging rule).
const REDACT = [
  'req.headers.authorization', 'req.headers["idempotency-key"]', '*.secret', '*.key', '*.pixKey', '*.taxId', '*.token',
  'err.detail', 'err.parameters', '*.body',
];
// Query values can carry a tax id or an e-mail (list filters): only these are logged as given.
const LOGGED_QUERY_VALUES = new Set(['id', 'limit', 'status']);

function loggedUrl(url: string): string {
  const [path, query] = url.split('?', 2);
  if (!query) return path!;
  const params = new URLSearchParams(query);
  for (const [k] of params) if (!LOGGED_QUERY_VALUES.has(k)) params.set(k, '*');
  return `${path}?${params.toString()}`;
}

/** One log line per request, when it completes, instead of Fastify's two: each line is a write system call. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** The HTTP app; built only after migrations ran, so /health's 503 means the database does not answer. */
export async function buildApp(rt: Runtime, logStream?: NodeJS.WritableStream): Promise<FastifyInstance> {
  const { config, pool, cursors } = rt;
  const app = Fastify({
    logger: config.logLevel === 'silent' && !logStream ? false : {
      level: logStream ? 'debug' : config.logLevel,
      stream: logStream,
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { req: (req) => ({ method: req.method, url: loggedUrl(req.url), remoteAddress: req.ip }) },
    },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    bodyLimit: ONE_MIB,
    return503OnClosing: true,
    // HEAD is another method on a known path: 404 like any other (decisions part 1).
    exposeHeadRoutes: false,
    frameworkErrors: routingErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // `/customers/` routes to `/customers/:id` with an empty id: a path that names nothing, so 404 like an
  // unknown route, before auth (decisions part 1).
  app.addHook('onRequest', async (req, reply) => {
    if (Object.values(req.params as Record<string, string>).includes('')) return notFoundHandler(req, reply);
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // An empty body with a JSON content type is a request without a body (decisions part 14).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = (body as string).trim();
    // Routing comes before parsing: an unknown route is 404 whatever its body (decisions part 14).
    if (text === '' || req.is404) return done(null, undefined);
    if (jsonDepthExceeds(text)) return done(new AppError('VALIDATION_ERROR', `body: nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
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
    transformObject: (documents) => {
      const doc = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
      documentIdempotencyKey(doc);
      return doc;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/health', { schema: { tags: ['health'], security: [] } }, async (_req, reply) => {
    const up = await pool.query('SELECT 1').then(() => true, () => false);
    return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable' });
  });

  await app.register(async (merchantApi) => {
    merchantApi.addHook('onRequest', merchantAuth(pool));
    if (config.rateLimitPerSecond > 0) {
      await merchantApi.register(rateLimit, {
        max: config.rateLimitPerSecond,
        timeWindow: 1000,
        hook: 'onRequest',
        keyGenerator: (req) => {
          const caller = req.auth?.caller;
          return caller?.kind === 'apiKey' ? caller.keyId : caller?.kind === 'session' ? caller.sessionId : req.ip;
        },
        errorResponseBuilder: (_req, ctx) => new AppError('RATE_LIMITED', `Rate limit of ${ctx.max} requests per second exceeded`),
      });
    }
    registerIdempotency(merchantApi, pool);
    await merchantApi.register(storeRoutes(pool));
    await merchantApi.register(customerRoutes(rt));
    await merchantApi.register(chargeRoutes(rt));
    await merchantApi.register(withdrawalRoutes(rt));
    await merchantApi.register(webhookRoutes(rt));
  });

  await app.register(async (admin) => {
    admin.addHook('onRequest', adminAuth(config.adminToken));
    await admin.register(adminRoutes(pool, cursors));
    if (rt.provider.name === 'simulator') await admin.register(simulatorRoutes(rt), { prefix: '/simulator' });
  }, { prefix: '/admin' });

  // The PSP's notifications: outside the merchant and operator scopes, authenticated by their own token.
  if (rt.provider.name === 'api-pix') await app.register(apiPixWebhookRoutes(rt), { prefix: '/providers/api-pix' });

  return app;
}
