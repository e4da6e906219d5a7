import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { AppError } from '../errors.js';

/**
 * The Redis client of REDIS_URL, or null. It never queues commands while disconnected and gives up on a
 * command after a short timeout: a rate limit must not hold a request up, and with Redis away each
 * limiter falls back to counting in this process (see skipOnError below and auth-failure-limit.ts).
 */
export function connectRedis(config: Config): Redis | null {
  if (!config.redisUrl) return null;
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 250,
    connectTimeout: 2_000,
  });
  redis.on('error', () => {}); // reconnects by itself; an unreachable Redis is not fatal
  return redis;
}

/** Opens the connection before traffic arrives; a Redis that does not answer yet is not an error. */
export const redisReady = (redis: Redis): Promise<void> => redis.connect().catch(() => {});

/** The per-caller rate-limit key: the API key, else the dashboard session, else the address. */
function callerKey(req: FastifyRequest): string {
  const caller = req.auth?.caller;
  return caller?.kind === 'apiKey' ? caller.keyId : caller?.kind === 'session' ? caller.sessionId : req.ip;
}

/**
 * The per-caller limit (docs/contract/http.md#rate-limits), registered after the scope's auth hook (it keys by the caller
 * that hook resolved). With Redis every process counts in the same fixed one-second windows; an error
 * from Redis lets the request through rather than failing the API (the limit protects capacity, not money).
 */
export async function registerKeyRateLimit(scope: FastifyInstance, config: Config, redis: Redis | null): Promise<void> {
  if (config.rateLimitPerSecond <= 0) return;
  await scope.register(rateLimit, {
    max: config.rateLimitPerSecond,
    timeWindow: 1000,
    hook: 'onRequest',
    keyGenerator: callerKey,
    ...(redis ? { redis, nameSpace: `${config.redisPrefix}rl:key:`, skipOnError: true } : {}),
    errorResponseBuilder: (_req, ctx) => new AppError('RATE_LIMITED', `Rate limit of ${ctx.max} requests per second exceeded`),
  });
}
