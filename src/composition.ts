import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Config } from './config.js';
import type { Runtime } from './runtime.js';
import { startWorkers } from './platform/jobs.js';
import { Cursors } from './platform/pagination.js';
import { deriveKey } from './platform/secrets.js';
import { createHttpServer } from './platform/http/server.js';
import { createAuthFailureLimiter, limitUnknownCredentials } from './platform/http/auth-failure-limit.js';
import { registerIdempotency } from './platform/http/idempotency.js';
import { idempotencyRetention } from './platform/http/idempotency.tasks.js';
import { connectRedis, redisReady, registerKeyRateLimit } from './platform/http/rate-limit.js';
import type { PixProvider } from './providers/port/provider.port.js';
import { createSimulator } from './providers/simulator/simulator.provider.js';
import { createApiPixProvider } from './providers/api-pix/api-pix.provider.js';
import { adminRoutes } from './admin/admin.routes.js';
import { apiKeyRoutes } from './auth/api-key.routes.js';
import { brandingRoutes } from './branding/branding.routes.js';
import { adminAuth, merchantAuth } from './auth/auth.hooks.js';
import { sessionRetention } from './auth/session.tasks.js';
import { chargeRoutes } from './charges/charge.routes.js';
import { chargeTasks, scheduleChargeExpiry } from './charges/charge.tasks.js';
import { checkoutRoutes } from './checkouts/checkout.routes.js';
import { customerRoutes } from './customers/customer.routes.js';
import { dashboardRoutes } from './dashboard/dashboard.routes.js';
import { adminDisputeRoutes } from './disputes/dispute.routes.js';
import { eventRetention } from './events/event.tasks.js';
import { paymentLinkRoutes } from './payment-links/payment-link.routes.js';
import { linkHitRetention } from './payment-links/payment-link.tasks.js';
import { pagePreviewRoutes } from './public-pages/page-preview.routes.js';
import { publicPageRoutes, publicRoutingError } from './public-pages/pages.routes.js';
import { refundRoutes } from './refunds/refund.routes.js';
import { refundTasks, scheduleRefundRecovery } from './refunds/refund.tasks.js';
import { statementRoutes } from './statement/statement.routes.js';
import { subscriptionRoutes } from './subscriptions/subscription.routes.js';
import { subscriptionTasks } from './subscriptions/subscription.tasks.js';
import { contractRoutes } from './store/contract.routes.js';
import { storeRoutes } from './store/store.routes.js';
import { unmatchedRoutes } from './unmatched/unmatched.routes.js';
import { scheduleUnmatchedRecovery, unmatchedTasks } from './unmatched/unmatched.tasks.js';
import { accountRoutes } from './user/account.routes.js';
import { loginRoutes } from './user/login.routes.js';
import { adminUserRoutes, userRoutes } from './user/user.routes.js';
import { eventRoutes } from './webhooks/event-log.routes.js';
import { deliveryGauges } from './webhooks/webhook.metrics.js';
import { webhookOperationRoutes } from './webhooks/webhook-ops.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { webhookTasks } from './webhooks/webhook.tasks.js';
import { startDispatcher } from './webhooks/dispatch.tasks.js';
import { drainSweep } from './webhooks/slow-lane.tasks.js';
import { withdrawalRoutes } from './withdrawals/withdrawal.routes.js';
import { scheduleWithdrawalRecovery, withdrawalTasks } from './withdrawals/withdrawal.tasks.js';
import { takeWithdrawalStarts } from './withdrawals/withdrawal-start.service.js';

/*
 * The composition root: the one module that knows every slice. Entry points (src/main.ts, tests,
 * benchmarks) build a process from it; no slice imports it (the dependency rules in .dependency-cruiser.cjs).
 */

const PROVIDERS: Record<Config['pixProvider'], (rt: Runtime) => PixProvider> = {
  simulator: createSimulator,
  'api-pix': createApiPixProvider,
};

/**
 * The runtime of one process. The provider calls the core back with it (a received PIX, a payout's
 * result) and the core calls the provider, so the provider is built with the runtime it will serve;
 * it reads `rt.provider` only when a call runs, never while it is built — a read before then throws.
 */
export function createRuntime(config: Config, pool: pg.Pool): Runtime {
  let provider: PixProvider | undefined;
  const rt: Runtime = {
    config,
    pool,
    cursors: new Cursors(deriveKey(config.encryptionKey, 'cursor')),
    get provider(): PixProvider {
      if (!provider) throw new Error('the PIX provider was used while it was being built');
      return provider;
    },
    // Tests wrap the provider to inject faults (test/withdrawals/dying-worker.ts).
    set provider(p: PixProvider) {
      provider = p;
    },
  };
  provider = PROVIDERS[config.pixProvider](rt);
  return rt;
}

/** The slices' database figures that /metrics reads at each scrape (API and worker processes alike). */
export const scrapedGauges = [deliveryGauges];

/** The HTTP API: the platform's server, then every slice's routes in the scope that authenticates them. */
export async function buildHttp(rt: Runtime, logStream?: NodeJS.WritableStream): Promise<FastifyInstance> {
  const { config, pool, cursors, provider } = rt;
  const app = await createHttpServer(config, pool, {
    logStream,
    scraped: scrapedGauges,
    // An invitation token in the path is a credential, a payload location's token a capability: never logged.
    secretPath: /^(\/auth\/invitations|\/dashboard\/invite|\/pix\/v2\/(cobv|rec))\/[^/]+/,
    routingError: publicRoutingError,
  });
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
    await registerIdempotency(merchantApi, pool, deriveKey(config.encryptionKey, 'idempotency-request'));
    await merchantApi.register(storeRoutes(pool));
    await merchantApi.register(contractRoutes());
    await merchantApi.register(customerRoutes(rt));
    await merchantApi.register(chargeRoutes(rt));
    await merchantApi.register(checkoutRoutes(rt));
    await merchantApi.register(subscriptionRoutes(rt));
    await merchantApi.register(paymentLinkRoutes(rt));
    await merchantApi.register(brandingRoutes(rt));
    await merchantApi.register(pagePreviewRoutes(rt));
    await merchantApi.register(refundRoutes(rt));
    await merchantApi.register(withdrawalRoutes(rt));
    await merchantApi.register(webhookRoutes(rt));
    await merchantApi.register(statementRoutes(rt));
    await merchantApi.register(webhookOperationRoutes(rt));
    await merchantApi.register(eventRoutes(rt));
    await merchantApi.register(userRoutes(rt));
    await merchantApi.register(accountRoutes(rt));
    await merchantApi.register(apiKeyRoutes(rt));
    if (provider.routes?.merchant) await merchantApi.register(provider.routes.merchant);
  });

  await app.register(async (admin) => {
    admin.addHook('onRequest', adminAuth(config.adminToken));
    await admin.register(adminRoutes(pool, cursors));
    await admin.register(adminUserRoutes(rt));
    await admin.register(unmatchedRoutes(rt));
    await admin.register(adminDisputeRoutes(rt));
    if (provider.routes?.admin) await admin.register(provider.routes.admin, { prefix: `/${provider.name}` });
  }, { prefix: '/admin' });

  // The payment and link pages: public, outside every credential scope (docs/contract/checkouts.md#payment-page).
  await app.register(publicPageRoutes(rt));

  // Login, logout, invitations: outside the merchant scope (no API key, no Idempotency-Key).
  await app.register(loginRoutes(rt));

  // The PSP's notifications: outside the merchant and operator scopes, authenticated by their own token.
  if (provider.routes?.public) await app.register(provider.routes.public, { prefix: `/providers/${provider.name}` });

  // What a payer's bank fetches from the PSP (the simulator's payload locations): open, at the root.
  if (provider.routes?.payer) await app.register(provider.routes.payer);

  return app;
}

/**
 * A worker process: the webhook dispatcher and the job queue's runners. Webhook deliveries are not jobs: the
 * dispatcher (src/webhooks/dispatch.tasks.ts) claims due deliveries in batches and sends them on its own slots,
 * holding no database connection while receivers answer. Deliveries to slow endpoints, and a merchant's beyond
 * its share of the dispatcher's slots and the burst slots of endpoints that answer fast (fairness.rules.ts), wait
 * on their pairs for the slow lane's drains, one job slot per slow endpoint (src/webhooks/slow-lane.tasks.ts), in
 * a runner of their own so that ten slow receivers cannot hold up payouts, refunds or expiry. A runner only takes jobs of the tasks it knows. The withdrawals this process's
 * API creates start here without a job, on slots of their own (src/withdrawals/withdrawal-start.service.ts).
 */
export async function runWorker(rt: Runtime, concurrency = 10): Promise<{ stop(): Promise<void> }> {
  const periodic = [
    idempotencyRetention(rt.pool), eventRetention(rt.pool, rt.config.eventRetentionDays), sessionRetention(rt.pool), drainSweep(rt.pool),
    linkHitRetention(rt.pool), subscriptionTasks(rt),
  ];
  const money = {
    ...chargeTasks(rt), ...refundTasks(rt), ...withdrawalTasks(rt), ...unmatchedTasks(rt),
    ...Object.assign({}, ...periodic.map((p) => p.tasks)), ...rt.provider.tasks?.(),
  };
  const dispatcher = await startDispatcher(rt, { slots: concurrency * 5 });
  const payouts = takeWithdrawalStarts(rt, concurrency);
  const worker = await startWorkers(rt.pool, [
    { taskList: money, concurrency }, { taskList: webhookTasks(rt), concurrency: concurrency * 2 },
  ]);
  await Promise.all([
    scheduleChargeExpiry(rt), scheduleRefundRecovery(rt), scheduleWithdrawalRecovery(rt), scheduleUnmatchedRecovery(rt),
    ...periodic.map((p) => p.schedule()), rt.provider.scheduleJobs?.(),
  ]);
  return { stop: async () => void (await Promise.all([dispatcher.stop(), worker.stop(), payouts.stop()])) };
}
