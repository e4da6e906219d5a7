/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name> [<name>...]` runs the ones named.
 * BENCH_QUICK=1 shortens every run (for trying the harness; figures then only indicative).
 * Database: DATABASE_URL's server when set, else an embedded PostgreSQL under .data/bench; each
 * benchmark gets a fresh migrated database, dropped afterwards. Loopback only.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config.js';
import { auth } from './auth.js';
import { chargeCreate } from './charge-create.js';
import { hotMerchant } from './hot-merchant.js';
import { paymentWebhook } from './payment-webhook.js';
import { payPages } from './pay-pages.js';
import { roundTrips } from './round-trips.js';
import { webhooks } from './webhooks.js';
import { webhookFairness } from './webhook-fairness.js';
import { withdrawals } from './withdrawals.js';
import type { Benchmark } from './lib/context.js';
import { load, machine, startDatabaseServer } from './lib/env.js';

const ALL: Benchmark[] = [chargeCreate, paymentWebhook, hotMerchant, withdrawals, webhooks, webhookFairness, auth, payPages, roundTrips];

async function main(args: string[]): Promise<void> {
  const unknown = args.filter((a) => !ALL.some((b) => b.name === a));
  if (unknown.length) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}\navailable:\n${ALL.map((b) => `  ${b.name.padEnd(18)} ${b.describe}`).join('\n')}`);
    process.exit(2);
  }
  const selected = args.length ? ALL.filter((b) => args.includes(b.name)) : ALL;
  const quick = process.env.BENCH_QUICK === '1';
  const server = await startDatabaseServer();
  const started = Date.now();
  const header = [
    `Pixgate benchmarks — ${new Date().toISOString()}`,
    `machine: ${machine()}; database: ${server.embedded ? 'embedded PostgreSQL 18 (.data/bench)' : 'DATABASE_URL'}; load average at start: ${load()}`,
    `command: npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}${quick ? ' (BENCH_QUICK=1)' : ''}`,
    '',
  ].join('\n');
  console.log(header);
  const sections = [header];
  try {
    for (const b of selected) {
      const t0 = Date.now();
      console.log(`— ${b.name}: ${b.describe}`);
      sections.push(await b.run({ server, quick }));
      console.log(`(${b.name}: ${((Date.now() - t0) / 1000).toFixed(0)} s, load average now ${load()})\n`);
    }
  } finally {
    await server.stop();
  }
  const footer = `total ${((Date.now() - started) / 1000).toFixed(0)} s; load average at end: ${load()}`;
  console.log(footer);
  // The last report, for docs/performance.md.
  mkdirSync(join(PROJECT_ROOT, '.data', 'bench'), { recursive: true });
  writeFileSync(join(PROJECT_ROOT, '.data', 'bench', 'last-report.md'), [...sections, footer].join('\n'));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
