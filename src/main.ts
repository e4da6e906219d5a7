import { loadConfig } from './config.js';
import { runAdminCommand, CLI_USAGE } from './admin/admin.cli.js';
import { seedDemoMerchant } from './admin/demo-merchant.service.js';
import { releaseExitHooks } from './platform/embedded-postgres.js';
import { AppError } from './platform/errors.js';
import { openDatabase } from './platform/database.js';
import { migrate } from './platform/migrate.js';
import { enforceProviderBinding } from './providers/provider-binding.service.js';
import { buildHttp, createRuntime, runWorker, scrapedGauges } from './composition.js';
import { buildOpsServer } from './platform/http/ops-server.js';

const USAGE = `Usage: pixgate <command>
  serve     the API and the background worker in one process (npm start)
  api       the API only (run several behind a load balancer)
  worker    the background worker only (METRICS_PORT: serves /metrics and /health/ready there)
  migrate   apply database migrations and exit
${CLI_USAGE}`;

// pg errors of a lost connection: SQLSTATE class 08, the server shutting down or starting (57P01-03),
// and the client's own messages when the socket closes under it.
const CONNECTION_LOST = /^(08|57P0[123]$)|^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)$/;
const isConnectionLoss = (err: unknown): boolean => {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && CONNECTION_LOST.test(code))
    || (typeof message === 'string' && /^(Connection terminated|Client has encountered a connection error)/.test(message));
};

/**
 * graphile-worker 0.17 releases a finished job without awaiting it; a database connection lost at that
 * moment (a restart, a failover) rejects with nobody listening, which would end the process. Losing a
 * connection changes nothing in the database, and the job left locked is released by the worker
 * (platform/jobs.ts), so such a rejection is tolerated; any other still ends the process.
 */
process.on('unhandledRejection', (err) => {
  if (!isConnectionLoss(err)) throw err;
});

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help') return console.log(USAGE);
  const config = loadConfig();
  const db = await openDatabase(config);
  const rt = createRuntime(config, db.pool);
  const stops: Array<() => Promise<unknown>> = [];
  const shutdown = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await db.close().catch(() => {});
  };
  try {
    await migrate(db.pool);
    await enforceProviderBinding(db.pool, config.pixProvider, { bind: command === 'serve' || command === 'api' || command === 'worker' });
    if (command === 'migrate') return console.log('migrations applied');
    if (command === 'merchant' || command === 'apikey' || command === 'user' || command === 'unmatched' || command === 'dispute') return console.log(JSON.stringify(await runAdminCommand(rt, [command, ...rest]), null, 2));
    if (command !== 'serve' && command !== 'api' && command !== 'worker') throw new Error(USAGE);

    // Any mix of serve/api/worker on one database (docs/contract/running.md#processes): jobs are taken with row locks and
    // every periodic job is queued under one job key, so a second worker adds no second copy of it.
    if (command !== 'worker') await rt.provider.prepare?.();
    const worker = command === 'api' ? null : await runWorker(rt);
    if (worker) stops.push(() => worker.stop());
    const http = command !== 'worker' ? await buildHttp(rt) : config.metricsPort ? await buildOpsServer(config, db.pool, scrapedGauges) : null;
    if (http) {
      stops.push(() => http.close());
      await http.listen({ port: command === 'worker' ? config.metricsPort! : config.port, host: config.host });
    }
    if (command === 'worker') console.log(`Pixgate worker running${http ? ` (metrics: http://${config.host}:${config.metricsPort}/metrics)` : ''}`);
    else await printWelcome(rt, `http://${config.host}:${config.port}`);
    releaseExitHooks(['SIGTERM', 'SIGINT']); // this process drains on both itself
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    // Drain: /health/ready says 503, requests in flight and running jobs finish, all within the grace.
    const deadline = Date.now() + config.shutdownGraceMs;
    const graceLeft = () => new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref());
    stops.length = 0;
    const jobsDone = worker ? Promise.race([worker.stop().catch(() => {}), graceLeft()]) : undefined;
    await http?.drain.drain(deadline, jobsDone);
    await jobsDone;
  } finally {
    await shutdown();
  }
}

async function printWelcome(rt: ReturnType<typeof createRuntime>, base: string): Promise<void> {
  // Only with the simulator (docs/contract/running.md#first-start): a real PSP would receive charges for a made-up PIX key.
  const seeded = rt.config.pixProvider === 'simulator' ? await seedDemoMerchant(rt.pool) : null;
  const lines = [`Pixgate listening on ${base}  (API docs: ${base}/docs)`, `Dashboard: ${rt.config.publicUrl}/dashboard`];
  if (rt.config.generated.adminToken) lines.push(`ADMIN_TOKEN (generated, saved in ${rt.config.dataDir}/admin-token): ${rt.config.adminToken}`);
  if (seeded) {
    lines.push(`Demo merchant ${seeded.merchantId} created. Its API key, shown once:`, `  ${seeded.apiKey}`);
    lines.push(`Try: curl -s -X POST ${base}/transparents/create -H 'Authorization: Bearer ${seeded.apiKey}' \\`);
    lines.push(`       -H 'Content-Type: application/json' -d '{"method":"PIX","amount":1000}'`);
    lines.push(`Dashboard login of the demo owner, shown once: ${seeded.owner.email} / ${seeded.owner.password}`);
  }
  console.log(lines.join('\n'));
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof AppError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
