import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../config.js';
import { databaseAnswers } from '../db.js';
import { AppError } from '../errors.js';
import { METRICS_CONTENT_TYPE, renderMetrics, type ScrapedGauges } from '../metrics.js';
import type { Drain } from './drain.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** METRICS_TOKEN or ADMIN_TOKEN, compared in constant time; anything else (a merchant key included) is 401. */
function metricsAuth(config: Config) {
  const accepted = [config.metricsToken, config.adminToken].filter((t): t is string => !!t).map(digest);
  return async (req: { headers: Record<string, unknown> }) => {
    const match = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? '').trim());
    const given = digest(match?.[1] ?? '');
    let ok = false;
    for (const a of accepted) ok = timingSafeEqual(given, a) || ok;
    if (!match || !ok) throw new AppError('UNAUTHORIZED', 'Invalid or missing metrics token');
  };
}

/**
 * GET /health and GET /health/ready (docs/contract/running.md#health) and
 * GET /metrics (Prometheus text; left out of the OpenAPI document, it is for the operator's scraper,
 * see docs/operations.md). Served by every process that listens: `serve`, `api`, and a `worker` with
 * METRICS_PORT.
 */
export const opsRoutes = (config: Config, pool: pg.Pool, drain: Drain, scraped: readonly ScrapedGauges[]) => async (app: FastifyInstance) => {
  const databaseUp = () => databaseAnswers(pool);
  const health = { tags: ['health'], security: [] };

  app.get('/health', { schema: health }, async (_req, reply) => {
    const up = await databaseUp();
    return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable' });
  });
  app.get('/health/ready', { schema: { ...health, description: '/health, and 503 `{status: "draining"}` once the process is shutting down' } }, async (_req, reply) => {
    if (drain.draining) return reply.code(503).send({ status: 'draining' });
    const up = await databaseUp();
    return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable' });
  });
  app.get('/metrics', { schema: { hide: true }, onRequest: metricsAuth(config) }, async (_req, reply) => {
    return reply.type(METRICS_CONTENT_TYPE).send(await renderMetrics(pool, scraped));
  });
};
