import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, RateLimited } from '../errors.js';
import { IdempotentReplay, sendReplay } from './idempotency.js';
import { schemaError } from './validation.js';

/** Fastify's own request errors, as the API's closed set of codes. */
function frameworkError(err: FastifyError): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'body: must not exceed 1 MiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('VALIDATION_ERROR', 'content-type: must be application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'content-length: does not match the body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'body: invalid JSON');
  }
  if (err.validation) return schemaError(err.validation as never, err.validationContext ?? 'body');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError('VALIDATION_ERROR', 'request: malformed');
  }
  return null;
}

export function errorHandler(err: FastifyError | AppError | IdempotentReplay, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof IdempotentReplay) return sendReplay(reply, err);
  if (req.is404) return notFoundHandler(req, reply);
  const appError = err instanceof AppError ? err : frameworkError(err as FastifyError);
  if (!appError) {
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(errorBody(new AppError('INTERNAL_ERROR', 'Internal error; the request id identifies it in the logs')));
  }
  if (appError.statusCode >= 500) req.log.error({ err }, appError.message);
  if (appError instanceof RateLimited) reply.header('retry-after', String(appError.retryAfter));
  return reply.code(appError.statusCode).send(errorBody(appError));
}

/** Errors Fastify raises while routing, before any route (or error handler) applies: a URL that does not decode, an over-long parameter. */
export function routingErrorHandler(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'path: a parameter is too long'
    : err.code === 'FST_ERR_BAD_URL' ? 'path: malformed percent-encoding' : 'request: malformed';
  return reply.code(400).send(errorBody(new AppError('VALIDATION_ERROR', message)));
}

export function notFoundHandler(_req: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errorBody(new AppError('NOT_FOUND', 'Route not found')));
}
