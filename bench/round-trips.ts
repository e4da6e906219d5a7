/**
 * Round trips and commits per operation — counts, not timings, so they hold on a loaded machine
 * (docs/performance.md). Runs Pixgate in this process (the API on one pool, the worker on another, as
 * `serve` does with one) and counts every statement each pool sends, BEGIN and COMMIT included, plus
 * the database's own commit counter (pg_stat_database.xact_commit, every transaction of the benchmark's
 * database, the job queue's polling included). Operations run one at a time, so each count is that
 * operation's alone (the idle rate over the same time is subtracted from the worker's and the commits).
 *
 *   DATABASE_URL=postgres://… node --import tsx bench/round-trips.ts       # or: npm run bench -- round-trips
 *   BENCH_PIXGATE_ROOT=<checkout>                                             # counts another checkout's code
 */
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Benchmark } from './lib/context.js';
import { freshDatabase, load, startDatabaseServer, type BenchServer } from './lib/env.js';

const ROOT = process.env.BENCH_PIXGATE_ROOT || join(import.meta.dirname, '..');
const ADMIN = 'round-trips-admin-token-of-at-least-32-chars';

interface Counter { statements: number; commits: number }

/** Counts what `pool`'s clients send: every query call is one round trip (node-pg never pipelines). */
function counted(pool: pg.Pool): Counter {
  const c: Counter = { statements: 0, commits: 0 };
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      c.statements++;
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text ?? '';
      if (/^\s*COMMIT\b/i.test(text)) c.commits++;
      return query(...args);
    };
  });
  return c;
}

async function xactCommits(pool: pg.Pool): Promise<number> {
  // Statistics reach the shared counters at most once a second per backend.
  await sleep(1200);
  const { rows } = await pool.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]!.n);
}

async function run(server: BenchServer): Promise<string> {
  const db = await freshDatabase(server);
  const { loadConfig } = await import(join(ROOT, 'src/config.ts'));
  const { createPool } = await import(join(ROOT, 'src/platform/db.ts'));
  const { buildHttp, createRuntime, runWorker } = await import(join(ROOT, 'src/composition.ts'));
  const config = loadConfig({
    ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_SECOND: '0',
  }, { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-rt-')) });
  const apiPool: pg.Pool = createPool(db.url, 10);
  const workerPool: pg.Pool = createPool(db.url, 10);
  const statsPool: pg.Pool = createPool(db.url, 1);
  const api = counted(apiPool);
  const worker = counted(workerPool);
  const app = await buildHttp(createRuntime(config, apiPool));
  const w = await runWorker(createRuntime(config, workerPool));

  const arrivals = new Map<string, () => void>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      res.writeHead(200).end('ok');
      const e = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { id?: string; chargeId?: string } };
      arrivals.get(`${e.event}:${e.data.id ?? e.data.chargeId}`)?.();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const arrived = (key: string, n: number) => new Promise<void>((resolve) => {
    let left = n;
    arrivals.set(key, () => { if (--left === 0) { arrivals.delete(key); resolve(); } });
  });

  const inject = async (method: string, url: string, auth: string, body?: unknown) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${auth}`, ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const merchant = async () => {
    const m = await inject('POST', '/admin/merchants', ADMIN, {
      userName: 'rt', email: 'rt@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja RT' }, pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
    });
    return { id: m.id as string, key: (await inject('POST', `/admin/merchants/${m.id}/api-keys`, ADMIN)).key as string };
  };

  const rows: string[] = [];
  const snapshot = () => ({ api: api.statements, apiCommits: api.commits, worker: worker.statements, workerCommits: worker.commits, t: performance.now() });
  let idlePerMs = 0;
  let idleCommitsPerMs = 0;
  /** Runs `n` operations one at a time and records the per-operation counts. */
  const measure = async (label: string, n: number, op: (i: number) => Promise<void>) => {
    const x0 = await xactCommits(statsPool);
    const s0 = snapshot();
    for (let i = 0; i < n; i++) await op(i);
    await sleep(300); // the worker's bookkeeping after the last delivery
    const s1 = snapshot();
    const x1 = await xactCommits(statsPool);
    const ms = s1.t - s0.t;
    const per = (v: number) => (v / n).toFixed(1);
    const workerStatements = s1.worker - s0.worker - idlePerMs * ms;
    const commits = x1 - x0 - 1 - idleCommitsPerMs * (ms + 1200); // minus the counter's own read
    rows.push(`| ${label} | ${n} | ${per(s1.api - s0.api)} | ${per(Math.max(0, workerStatements))} | ${per(s1.apiCommits - s0.apiCommits)} | ${per(Math.max(0, commits))} |`);
  };

  try {
    const one = await merchant();
    const twenty = await merchant();
    await inject('POST', '/webhooks', one.key, { url: `${hook}/one`, events: ['CHARGE_PAID'] });
    for (let i = 0; i < 20; i++) await inject('POST', '/webhooks', twenty.key, { url: `${hook}/twenty/${i}`, events: ['CHARGE_PAID'] });
    const create = (key: string) => inject('POST', '/transparents/create', key, { method: 'PIX', amount: 1000 }).then((c) => c.id as string);
    // Warm-up: prepared statements on both pools' connections, the receiver's connections.
    for (let i = 0; i < 20; i++) {
      const id = await create(one.key);
      const done = arrived(`CHARGE_PAID:${id}`, 1);
      await inject('POST', `/admin/simulator/charges/${id}/pay`, ADMIN);
      await done;
    }
    // Idle: what the worker sends with nothing to do.
    await sleep(1500);
    const i0 = snapshot();
    const ix0 = await xactCommits(statsPool);
    await sleep(5000);
    const ix1 = await xactCommits(statsPool);
    const i1 = snapshot();
    idlePerMs = (i1.worker - i0.worker) / (i1.t - i0.t);
    idleCommitsPerMs = (ix1 - ix0 - 1) / (i1.t - i0.t);

    const N = 100;
    await measure('charge create (`POST /transparents/create`, no customer)', N, async () => { await create(one.key); });
    const charges = await Promise.all(Array.from({ length: 3 * N }, () => create(one.key)));
    await measure('pay (`POST /admin/simulator/charges/{id}/pay`) → CHARGE_PAID delivered, 1 endpoint', N, async (i) => {
      const done = arrived(`CHARGE_PAID:${charges[i]}`, 1);
      await inject('POST', `/admin/simulator/charges/${charges[i]}/pay`, ADMIN);
      await done;
    });
    await measure('merchant `POST /transparents/simulate-payment` → delivered, 1 endpoint', N, async (i) => {
      const done = arrived(`CHARGE_PAID:${charges[N + i]}`, 1);
      await inject('POST', `/transparents/simulate-payment?id=${charges[N + i]}`, one.key);
      await done;
    });
    const many = await Promise.all(Array.from({ length: 20 }, () => create(twenty.key)));
    await measure('pay → delivered to 20 endpoints (per payment)', 20, async (i) => {
      const done = arrived(`CHARGE_PAID:${many[i]}`, 20);
      await inject('POST', `/admin/simulator/charges/${many[i]}/pay`, ADMIN);
      await done;
    });
    return [
      `| operation | n | API statements/op | worker statements/op | API COMMITs/op | database commits/op |`,
      `|---|---:|---:|---:|---:|---:|`,
      ...rows,
      '',
      `idle worker: ${(idlePerMs * 1000).toFixed(1)} statements/s, ${(idleCommitsPerMs * 1000).toFixed(1)} database commits/s; load average ${load()}`,
    ].join('\n');
  } finally {
    await w.stop();
    await app.close();
    await new Promise((r) => receiver.close(r));
    for (const p of [apiPool, workerPool, statsPool]) await p.end();
    await db.drop();
  }
}

export const roundTrips: Benchmark = {
  name: 'round-trips',
  describe: 'statements and commits per operation (counts, one operation at a time)',
  run: ({ server }) => run(server).then((table) => {
    console.log(table);
    return `### round trips and commits per operation\n\n${table}\n`;
  }),
};

if (process.argv[1] === import.meta.filename) {
  const server = await startDatabaseServer();
  try {
    console.log(`round trips per operation — ${new Date().toISOString()}, load average ${load()}, code ${ROOT}`);
    console.log(await run(server));
  } finally {
    await server.stop();
  }
}
