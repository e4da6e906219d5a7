import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config.js';
import { cpuMeter } from './lib/cpu.js';
import { HttpClient } from './lib/http.js';
import { closedLoop } from './lib/load.js';
import { freshDatabase, load, machine, startDatabaseServer } from './lib/env.js';

/**
 * `npm run bench:fleet`: throughput of charge create and of payments (the simulator's pay, which credits
 * the ledger and records the events) against the number of `pixgate api` processes (1, 2, 3) on one
 * database, with one `pixgate worker` beside them, requests spread round-robin as a load balancer would.
 * Closed loop (FLEET_CONCURRENCY clients, default 32), FLEET_SECONDS per run (default 4). CPU per operation:
 * every API process together, the worker, and PostgreSQL (when embedded), from /proc.
 */
const SECONDS = Number(process.env.FLEET_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.FLEET_CONCURRENCY ?? 32);
const ADMIN_TOKEN = 'bench-fleet-admin-token-0123456789abcdef';
const ENCRYPTION_KEY = randomBytes(32).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

interface Proc { child: ChildProcess; base: string }

async function start(command: 'api' | 'worker', databaseUrl: string): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'src/main.ts'), command], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN, ENCRYPTION_KEY, LOG_LEVEL: 'warn',
      PIXGATE_DATA_DIR: join(PROJECT_ROOT, '.data', 'bench'), RATE_LIMIT_PER_SECOND: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  if (command === 'worker') await sleep(2000);
  else while (!(await fetch(`${base}/health`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`pixgate ${command} did not start`);
    await sleep(100);
  }
  return { child, base };
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (p.child.exitCode === null) p.child.kill('SIGKILL');
}

interface Row { apis: number; op: string; perSecond: number; apiCpuMs: number; workerCpuMs: number; dbCpuMs: number }

/** One measured run: ops/s, and CPU ms per operation of the APIs (together), the worker and PostgreSQL. */
async function measure(apis: Proc[], worker: Proc, op: (client: HttpClient, i: number) => Promise<unknown>): Promise<Omit<Row, 'apis' | 'op'>> {
  const clients = apis.map((a) => new HttpClient(a.base, { maxSockets: CONCURRENCY }));
  const spread = (i: number): Promise<void> => op(clients[i % clients.length]!, i).then(() => {});
  await closedLoop({ concurrency: 16, durationMs: 1500, op: spread }); // warm-up: JIT, connections, prepared statements
  const meters = [...apis, worker].map((p) => cpuMeter(p.child.pid!)());
  let done = 0;
  let last = 0;
  const t0 = performance.now();
  await closedLoop({ concurrency: CONCURRENCY, durationMs: SECONDS * 1000, op: (i) => spread(i).then(() => { done++; last = performance.now(); }) });
  // Until the last success: a payment run may use up the charges made before it and idle to the end.
  const elapsed = last - t0;
  const cpu = meters.map((stopMeter) => stopMeter());
  for (const c of clients) c.close();
  const per = (ms: number) => (done ? ms / done : NaN);
  return {
    perSecond: (done * 1000) / elapsed,
    apiCpuMs: per(cpu.slice(0, apis.length).reduce((s, c) => s + c.server, 0)),
    workerCpuMs: per(cpu.at(-1)!.server),
    dbCpuMs: per(cpu[0]!.db),
  };
}

async function main(): Promise<void> {
  const server = await startDatabaseServer();
  const rows: Row[] = [];
  try {
    for (const n of [1, 2, 3]) {
      const db = await freshDatabase(server);
      const procs: Proc[] = [];
      try {
        const apis: Proc[] = [];
        for (let i = 0; i < n; i++) apis.push(await start('api', db.url));
        const worker = await start('worker', db.url);
        procs.push(...apis, worker);
        const admin = new HttpClient(apis[0]!.base, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        const m = await admin.json('POST', '/admin/merchants', {
          userName: 'fleet', email: 'fleet@example.com', kyc: { status: 'APPROVED', tradeName: 'Fleet' }, pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
        }, 201);
        const { data: { key } } = await admin.json('POST', `/admin/merchants/${m.data.id}/api-keys`, undefined, 201);
        const auth = { authorization: `Bearer ${key}` };

        const charges: string[] = [];
        const create = async (c: HttpClient) => {
          const text = await c.expect('POST', '/transparents/create', { method: 'PIX', amount: 1000 }, 201, auth);
          charges.push((JSON.parse(text) as { data: { id: string } }).data.id);
        };
        rows.push({ apis: n, op: 'charge create', ...(await measure(apis, worker, create)) });
        // Payments of the charges just created, each once (a pay of a PAID charge would be a refusal).
        let next = 0;
        const pay = (c: HttpClient) => {
          const id = charges[next++];
          if (!id) return sleep(10).then(() => { throw new Error('out of charges'); });
          return c.expect('POST', `/admin/simulator/charges/${id}/pay`, undefined, 200, { authorization: `Bearer ${ADMIN_TOKEN}` });
        };
        rows.push({ apis: n, op: 'payment', ...(await measure(apis, worker, pay)) });
        if (next > charges.length) console.error(`(${n} APIs: the payment run used up the ${charges.length} charges before its end)`);
        admin.close();
      } finally {
        for (const p of procs) await stop(p);
        await db.drop();
      }
    }
  } finally {
    await server.stop();
  }

  const f = (x: number, d = 2) => (Number.isNaN(x) ? '—' : x.toFixed(d));
  console.log([
    `## Fleet: throughput against API processes — ${new Date().toISOString()}`,
    `${machine()}; load ${load()}; PostgreSQL ${server.embedded ? 'embedded (its CPU measured)' : 'from DATABASE_URL (its CPU not measured)'}; `
      + `closed loop, ${CONCURRENCY} clients round-robin over the APIs, ${SECONDS} s per run; one worker process beside the APIs`,
    '',
    '| APIs | operation | ops/s | vs 1 API | API CPU ms/op (all APIs) | worker CPU ms/op | PostgreSQL CPU ms/op |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const one = rows.find((x) => x.apis === 1 && x.op === r.op)!;
      return `| ${r.apis} | ${r.op} | ${f(r.perSecond, 0)} | ${f(r.perSecond / one.perSecond)}× | ${f(r.apiCpuMs)} | ${f(r.workerCpuMs)} | ${f(r.dbCpuMs)} |`;
    }),
  ].join('\n'));
}

await main();
