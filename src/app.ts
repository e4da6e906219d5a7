import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import sjson from 'secure-json-parse';
import { adminRoutes } from './admin/admin.routes.js';
import { adminAuth, merchantAuth } from './auth/auth.hooks.js';
import { AppError } from './platform/errors.js';
import { ErrorEnvelope } from './platform/http/envelope.js';
import { errorHandler, notFoundHandler, routingErrorHandler } from './platform/http/error-handler.js';
import { documentIdempotencyKey, registerIdempotency } from './platform/http/idempotency.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './platform/http/json-depth.js';
import { validatorCompiler } from './platform/http/validation.js';
import { trackInFlight } from './platform/http/drain.js';
import { opsRoutes } from './platform/http/ops.routes.js';
import { connectRedis, redisReady, registerKeyRateLimit } from './platform/http/rate-limit.js';
import { createAuthFailureLimiter, limitUnknownCredentials } from './platform/http/auth-failure-limit.js';
import { observeRequest } from './platform/metrics.js';
import { dashboardRoutes } from './dashboard/dashboard.routes.js';
import { storeRoutes } from './store/store.routes.js';
import { contractRoutes } from './merchants/contract.routes.js';
import { customerRoutes } from './customers/customer.routes.js';
import { chargeRoutes } from './charges/charge.routes.js';
import { checkoutRoutes } from './checkouts/checkout.routes.js';
import { paymentLinkRoutes } from './payment-links/payment-link.routes.js';
import { brandingRoutes } from './branding/branding.routes.js';
import { publicPageRoutes } from './public-pages/pages.routes.js';
import { withdrawalRoutes } from './withdrawals/withdrawal.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { statementRoutes } from './statement/statement.routes.js';
import { webhookOperationRoutes } from './webhooks/webhook-ops.routes.js';
import { eventRoutes } from './events/event.routes.js';
import { apiKeyRoutes } from './auth/api-keys.routes.js';
import { accountRoutes } from './users/account.routes.js';
import { authRoutes } from './users/auth.routes.js';
import { adminUserRoutes, userRoutes } from './users/users.routes.js';
import { simulatorMerchantRoutes } from './providers/simulator/sim-merchant.routes.js';
import { simulatorRoutes } from './providers/simulator/simulator.routes.js';
import { apiPixWebhookRoutes } from './providers/api-pix/api-pix-webhook.routes.js';
import { unmatchedRoutes } from './unmatched/unmatched.routes.js';
import { adminDisputeRoutes } from './disputes/dispute.routes.js';
import { deriveKey } from './platform/secrets.js';
import type { Runtime } from './runtime.js';

const ONE_MIB = 1024 * 1024;

// Logs never carry API keys, secrets, full tax ids or PIX keys (the logging rule).
const REDACT = [
  'req.headers.authorization', 'req.headers["idempotency-key"]', '*.secret', '*.key', '*.pixKey', '*.taxId', '*.token',
  'err.detail', 'err.parameters', '*.body',
  'req.headers.cookie', '*.password', '*.currentPassword', '*.newPassword', '*.totp', '*.code',
];
// Query values can carry a tax id or an e-mail (list filters): only these are logged as given.
const LOGGED_QUERY_VALUES = new Set(['id', 'limit', 'status']);

function loggedUrl(url: string): string {
  const [raw, query] = url.split('?', 2);
  // An invitation token in the path is a credential: never logged.
  const path = raw!.replace(/^\/(auth\/invitations|dashboard\/invite)\/[^/]+/, '/$1/*');
  if (!query) return path;
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
    // HEAD is another method on a known path: 404 like any other (docs/contract/http.md#routing).
    exposeHeadRoutes: false,
    frameworkErrors: routingErrorHandler,
    // Behind a TLS proxy (docs/deployment.md): the client address the per-address limits count by.
    trustProxy: config.trustProxy as boolean, // or a hop count / address list: all three are Fastify's own
  });
  // The in-flight count SIGTERM waits for (raw server events), and the request metrics (first onResponse hook).
  const drain = trackInFlight(app);
  app.decorate('drain', drain);
  app.addHook('onResponse', (req, reply, next) => {
    observeRequest(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime);
    next();
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // `/customers/` routes to `/customers/:id` with an empty id: a path that names nothing, so 404 like an
  // unknown route, before auth (docs/contract/http.md#routing).
  app.addHook('onRequest', async (req, reply) => {
    if (Object.values(req.params as Record<string, string>).includes('')) return notFoundHandler(req, reply);
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // An empty body with a JSON content type is a request without a body (docs/contract/http.md#routing).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = (body as string).trim();
    // Routing comes before parsing: an unknown route is 404 whatever its body (docs/contract/http.md#routing).
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
          session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard session token from POST /auth/login' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'pxg_session', description: 'Set by POST /auth/login; non-GET requests also send X-Pixgate-Client: dashboard' },
        },
      },
      security: [{ apiKey: [] }, { session: [] }, { sessionCookie: [] }],
    },
    transformObject: (documents) => {
      const doc = 'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject;
      documentIdempotencyKey(doc);
      return doc;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(opsRoutes(config, pool, drain));
  // The merchant dashboard (web/): static files at /dashboard, outside the API's auth and OpenAPI document.
  await app.register(dashboardRoutes());

  // REDIS_URL: the rate limits are shared by every process (docs/contract/http.md#rate-limits).
  const redis = connectRedis(config);
  if (redis) {
    await redisReady(redis);
    app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  }
  const unknownCredentials = createAuthFailureLimiter({ perSecond: config.rateLimitPerSecond, redis, prefix: config.redisPrefix });

  await app.register(async (merchantApi) => {
    merchantApi.addHook('onRequest', limitUnknownCredentials(unknownCredentials, merchantAuth(pool, config.encryptionKey)));
    await registerKeyRateLimit(merchantApi, config, redis);
    registerIdempotency(merchantApi, pool, deriveKey(config.encryptionKey, 'idempotency-request'));
    await merchantApi.register(storeRoutes(pool));
    await merchantApi.register(contractRoutes());
    await merchantApi.register(customerRoutes(rt));
    await merchantApi.register(chargeRoutes(rt));
    await merchantApi.register(checkoutRoutes(rt));
    await merchantApi.register(paymentLinkRoutes(rt));
    await merchantApi.register(brandingRoutes(rt));
    await merchantApi.register(withdrawalRoutes(rt));
    await merchantApi.register(webhookRoutes(rt));
    await merchantApi.register(statementRoutes(rt));
    await merchantApi.register(webhookOperationRoutes(rt));
    await merchantApi.register(eventRoutes(rt));
    await merchantApi.register(userRoutes(rt));
    await merchantApi.register(accountRoutes(rt));
    await merchantApi.register(apiKeyRoutes(rt));
    if (rt.provider.name === 'simulator') await merchantApi.register(simulatorMerchantRoutes(rt));
  });

  await app.register(async (admin) => {
    admin.addHook('onRequest', adminAuth(config.adminToken));
    await admin.register(adminRoutes(pool, cursors));
    await admin.register(adminUserRoutes(rt));
    await admin.register(unmatchedRoutes(rt));
    await admin.register(adminDisputeRoutes(rt));
    if (rt.provider.name === 'simulator') await admin.register(simulatorRoutes(rt), { prefix: '/simulator' });
  }, { prefix: '/admin' });

  // The payment and link pages: public, outside every credential scope (docs/contract/checkouts.md#payment-page).
  await app.register(publicPageRoutes(rt));

  // Login, logout, invitations: outside the merchant scope (no API key, no Idempotency-Key).
  await app.register(authRoutes(rt));

  // The PSP's notifications: outside the merchant and operator scopes, authenticated by their own token.
  if (rt.provider.name === 'api-pix') await app.register(apiPixWebhookRoutes(rt), { prefix: '/providers/api-pix' });

  return app;
}
