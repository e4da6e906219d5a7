import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../config.js';
import { trackInFlight } from './drain.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import type { ScrapedGauges } from '../metrics.js';
import { opsRoutes } from './ops.routes.js';

/**
 * What a `worker` process serves on METRICS_PORT: /health, /health/ready and /metrics only, so the
 * webhook and ledger counters of the processes that do that work can be scraped too.
 */
export async function buildOpsServer(config: Config, pool: pg.Pool, scraped: readonly ScrapedGauges[]): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, return503OnClosing: true, exposeHeadRoutes: false });
  const drain = trackInFlight(app);
  app.decorate('drain', drain);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  await app.register(opsRoutes(config, pool, drain, scraped));
  return app;
}
