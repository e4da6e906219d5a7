import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { symbols } from 'pino';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type pg from 'pg';
import sjson from 'secure-json-parse';
import type { Config } from '../../config.js';
import { AppError } from '../errors.js';
import { observeRequest, type ScrapedGauges } from '../metrics.js';
import { trackInFlight } from './drain.js';
import { ErrorEnvelope } from './envelope.js';
import { errorHandler, notFoundHandler, routingErrorHandler } from './error-handler.js';
import { documentIdempotencyKey } from './idempotency.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';
import { opsRoutes } from './ops.routes.js';
import { validatorCompiler } from './validation.js';

const ONE_MIB = 1024 * 1024;

// Logs never carry API keys, secrets, full tax ids or PIX keys (the issue's logging rule).
const REDACT = [
  'req.headers.authorization', 'req.headers["idempotency-key"]', '*.secret', '*.key', '*.pixKey', '*.taxId', '*.token',
  'err.detail', 'err.parameters', '*.body',
  'req.headers.cookie', '*.password', '*.currentPassword', '*.newPassword', '*.totp', '*.code',
];
// Query values can carry a tax id or an e-mail (list filters): only these are logged as given.
const LOGGED_QUERY_VALUES = new Set(['id', 'limit', 'status']);

function loggedUrl(url: string, secretPath: RegExp | undefined): string {
  const [raw, query] = url.split('?', 2);
  const path = secretPath ? raw!.replace(secretPath, '$1/*') : raw!;
  if (!query) return path;
  const params = new URLSearchParams(query);
  for (const [k] of params) if (!LOGGED_QUERY_VALUES.has(k)) params.set(k, '*');
  return `${path}?${params.toString()}`;
}

const { serializersSym } = symbols;

/** One log line per request, when it completes, instead of Fastify's two: each line is a write system call. */
class OneLinePerRequest extends LogController {
  /**
   * The server's logger without redaction, for the line of a request that completed: its fields are what the
   * serializers make of the request (method, masked URL, address), the status and the time, none of them a
   * redacted path, and redaction ran its wildcard paths over each of them — ≈ 10 µs a line, half its cost.
   * A route with serializers of its own (a token in its path) keeps its request's logger.
   */
  private plain?: { log: FastifyBaseLogger; serializers: unknown };

  useUnredacted(root: FastifyBaseLogger): void {
    this.plain = { log: root.child({}, { redact: { paths: [], censor: '[redacted]' } }), serializers: (root as never)[serializersSym] };
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (this.plain && (reply.log as never)[serializersSym] === this.plain.serializers) {
      this.plain.log.info({ reqId: request.id, req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    } else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

export interface ServerOptions {
  /** Where the JSON log lines go (tests); otherwise stdout at config.logLevel. */
  logStream?: NodeJS.WritableStream;
  /** A path whose segment after group 1 is a credential (an invitation token): logged as `<group 1>/*`. */
  secretPath?: RegExp;
  /** The slices' database gauges /metrics reads (src/composition.ts). */
  scraped?: readonly ScrapedGauges[];
  /**
   * A slice's own answer to a request the router refused (an over-long parameter, a bad percent-encoding), before any
   * route: the reply it sent, or undefined to leave it to the API's 400 (the public pages' 404 page, src/composition.ts).
   */
  routingError?: (req: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
}

/**
 * The HTTP server every API process runs, before any slice's routes: logging, parsing, the envelope's
 * error handling, the OpenAPI document, /health and /metrics. src/composition.ts registers the slices.
 * Built only after migrations ran, so /health's 503 means the database does not answer.
 */
export async function createHttpServer(config: Config, pool: pg.Pool, o: ServerOptions = {}): Promise<FastifyInstance> {
  const { logStream } = o;
  const lines = new OneLinePerRequest();
  const logger = config.logLevel === 'silent' && !logStream ? false : {
    level: logStream ? 'debug' : config.logLevel,
    stream: logStream,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: { req: (req: FastifyRequest) => ({ method: req.method, url: loggedUrl(req.url, o.secretPath), remoteAddress: req.ip }) },
  };
  const app = Fastify({
    logger,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: lines,
    bodyLimit: ONE_MIB,
    return503OnClosing: true,
    // HEAD is another method on a known path: 404 like any other (docs/contract/http.md#routing).
    exposeHeadRoutes: false,
    frameworkErrors: (err, req, reply) => o.routingError?.(req, reply) ?? routingErrorHandler(err, req, reply),
    // Behind a TLS proxy (docs/deployment.md): the client address the per-address limits count by.
    trustProxy: config.trustProxy as boolean, // or a hop count / address list: all three are Fastify's own
  });
  if (logger) lines.useUnredacted(app.log);
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
  // These two run on every request: callback hooks, not async ones, so each costs no promise and no microtask.
  app.addHook('onRequest', (req, reply, done) => {
    if (Object.values(req.params as Record<string, string>).includes('')) notFoundHandler(req, reply);
    else done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
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
  await app.register(opsRoutes(config, pool, drain, o.scraped ?? []));
  return app;
}
