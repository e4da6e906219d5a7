/**
 * Round trips and commits per operation — counts, not timings, so they hold on a loaded machine
 * (docs/performance.md). Runs Pixgate in this process (the API on one pool, the worker on another, as
 * `serve` does with one) and counts every statement each pool sends, BEGIN and COMMIT included, the
 * commits, and those of them that wait for a WAL flush (see counted()). Operations run one at a time, so
 * each count is that operation's alone (the worker's idle polling over the same time is taken out).
 * Sessions outside both pools (a payout run's lock, platform/jobs.ts runExclusive) are counted apart:
 * their statements and the connections opened for them.
 *
 *   DATABASE_URL=postgres://… node --import tsx bench/round-trips.ts       # or: npm run bench -- round-trips
 *   BENCH_PIXGATE_ROOT=<checkout>                                             # counts another checkout's code
 *
 * On a server that loads pg_stat_statements (`shared_preload_libraries`, with `pg_stat_statements.track=all`
 * so a trigger's statements show), it also ranks the statements of a paid and delivered payment by their
 * execution time, with the buffers and WAL each writes (counts that do not depend on the machine's load), the
 * row updates per table that were HOT, and the CPU of PostgreSQL's processes over the same payments when the
 * server runs on this machine.
 */
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Benchmark } from './lib/context.js';
import { postgresCpu } from './lib/cpu.js';
import { freshDatabase, load, startDatabaseServer, type BenchServer } from './lib/env.js';

const ROOT = process.env.BENCH_PIXGATE_ROOT || join(import.meta.dirname, '..');
const ADMIN = 'round-trips-admin-token-of-at-least-32-chars';

interface Counter { statements: number; commits: number; flushed: number }

/** The clients of the counted pools; every other client of `pg` is a session of its own (outsiders()). */
const pooled = new WeakSet<object>();

// A statement that changes rows (or queues a notification): its transaction's commit writes WAL.
const WRITES = /\b(insert\s+into|update\s+[\w.]+\s+(\w+\s+)?set|delete\s+from|ledger_post|add_job|pg_notify|complete_job|fail_job)\b/i;
const UNFLUSHED = /synchronous_commit/;

/**
 * Counts what `pool`'s clients send: every query call is one round trip (node-pg never pipelines). A commit
 * is a COMMIT or a statement run outside BEGIN (its own transaction); a flushed commit is one of those that
 * wrote (by its statements' text: an upper bound, since e.g. a job pick-up that found nothing wrote nothing)
 * and did not ask for an unflushed commit.
 */
function counted(pool: pg.Pool): Counter {
  const c: Counter = { statements: 0, commits: 0, flushed: 0 };
  pool.on('connect', (client) => {
    pooled.add(client);
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    let inTx = false;
    let wrote = false;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      c.statements++;
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text ?? '';
      if (/^\s*BEGIN\b/i.test(text)) {
        inTx = true;
        wrote = false;
      } else if (/^\s*(COMMIT|ROLLBACK)\b/i.test(text)) {
        if (/^\s*COMMIT/i.test(text)) {
          c.commits++;
          if (wrote) c.flushed++;
        }
        inTx = false;
      } else if (inTx) {
        wrote ||= WRITES.test(text);
      } else {
        c.commits++;
        if (WRITES.test(text) && !UNFLUSHED.test(text)) c.flushed++;
      }
      return query(...args);
    };
  });
  return c;
}

/** Counts what clients outside the counted pools send (the code under test's own `pg`), and their connections. */
function outsiders(): Counter & { connects: number } {
  const c = { statements: 0, commits: 0, flushed: 0, connects: 0 };
  const { Client } = createRequire(join(ROOT, 'package.json'))('pg') as typeof import('pg');
  const { query, connect } = Client.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  Object.assign(Client.prototype, {
    query(this: object, ...args: unknown[]) {
      if (!pooled.has(this)) {
        c.statements++;
        c.commits++; // a session's statements run outside transactions (a lock, an unlock)
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text ?? '';
        if (WRITES.test(text)) c.flushed++;
      }
      return query!.apply(this, args);
    },
    connect(this: object, ...args: unknown[]) {
      c.connects++;
      return connect!.apply(this, args);
    },
  });
  return c;
}

/** The postmaster of the server `db` is connected to, when it runs on this machine; else null. */
async function postmasterOf(db: pg.Pool): Promise<number | null> {
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  try {
    const stat = readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

interface StatementCost { toplevel: boolean; calls: number; exec: number; plan: number; blks: number; dirtied: number; wal: number; fpi: number; bytes: number; query: string }

/**
 * The statements of `n` operations run one at a time by `op`, from pg_stat_statements, ranked by execution
 * time, per operation; with each table's row updates and how many were HOT, and PostgreSQL's CPU over the run
 * less `idleDbCpuPerMs` (the worker's polling). Null when the server does not load pg_stat_statements.
 */
async function statementCosts(url: string, n: number, idleDbCpuPerMs: number, op: (i: number) => Promise<void>): Promise<string | null> {
  const db = new pg.Pool({ connectionString: url, max: 1 });
  try {
    try {
      await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await db.query('SELECT pg_stat_statements_reset()');
    } catch {
      return null;
    }
    const pm = await postmasterOf(db);
    const tables = async () => (await db.query<{ relname: string; ins: number; upd: number; hot: number }>(
      'SELECT relname, n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables',
    )).rows;
    await sleep(11_000); // every backend's table counters of the warm-up flushed (an idle backend flushes them within 10 s)
    const before = new Map((await tables()).map((t) => [t.relname, t]));
    const cpu0 = pm === null ? NaN : postgresCpu(pm);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await op(i);
    await sleep(300); // the worker's bookkeeping after the last delivery
    const dbCpu = (pm === null ? NaN : postgresCpu(pm) - cpu0 - idleDbCpuPerMs * (performance.now() - t0)) / n;
    const { rows } = await db.query<StatementCost>(
      `SELECT toplevel, calls::float8 / $1 AS calls, total_exec_time / $1 AS exec, total_plan_time / $1 AS plan,
              (shared_blks_hit + shared_blks_read)::float8 / $1 AS blks, shared_blks_dirtied::float8 / $1 AS dirtied,
              wal_records::float8 / $1 AS wal, wal_fpi::float8 / $1 AS fpi, wal_bytes::float8 / $1 AS bytes, query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 20`,
      [n],
    );
    await sleep(11_000);
    const after = await tables();
    const f = (x: number, d = 2) => x.toFixed(d);
    const text = (q: string) => q.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 110);
    const updates = after.map((t) => {
      const b = before.get(t.relname) ?? { ins: 0, upd: 0, hot: 0 };
      return { name: t.relname, ins: (t.ins - b.ins) / n, upd: (t.upd - b.upd) / n, hot: (t.hot - b.hot) / n };
    }).filter((t) => t.ins > 0 || t.upd > 0).sort((a, b) => b.upd + b.ins - a.upd - a.ins);
    return [
      `PostgreSQL CPU per operation (its processes, the idle worker's polling taken out): ${f(dbCpu)} ms`,
      '',
      '| statement | top level | calls/op | exec ms/op | plan ms/op | buffers/op | dirtied/op | WAL records/op | WAL full pages/op | WAL bytes/op |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| \`${text(r.query)}\` | ${r.toplevel ? 'yes' : 'no'} | ${f(r.calls)} | ${f(r.exec, 3)} | ${f(r.plan, 3)} | ${f(r.blks, 1)} | ${f(r.dirtied, 1)} | ${f(r.wal, 1)} | ${f(r.fpi, 2)} | ${f(r.bytes, 0)} |`),
      '',
      '| table | rows inserted/op | rows updated/op | of them HOT/op |',
      '|---|---:|---:|---:|',
      ...updates.map((t) => `| ${t.name} | ${f(t.ins)} | ${f(t.upd)} | ${f(t.hot)} |`),
    ].join('\n');
  } finally {
    await db.end();
  }
}

async function run(server: BenchServer): Promise<string> {
  const db = await freshDatabase(server);
  const { loadConfig } = await import(join(ROOT, 'src/config.ts'));
  const { createPool } = await import(join(ROOT, 'src/platform/db.ts'));
  const { buildHttp, createRuntime, runWorker } = await import(join(ROOT, 'src/composition.ts'));
  const config = loadConfig({
    ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_SECOND: '0', SIM_PAYOUT_DELAY_MS: '0',
  }, { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-rt-')) });
  const apiPool: pg.Pool = createPool(db.url, 10);
  const workerPool: pg.Pool = createPool(db.url, 10);
  const api = counted(apiPool);
  const worker = counted(workerPool);
  const sessions = outsiders();
  const app = await buildHttp(createRuntime(config, apiPool));
  const w = await runWorker(createRuntime(config, workerPool));

  const arrivals = new Map<string, () => void>();
  const early = new Set<string>(); // arrived before anyone waited for them
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      res.writeHead(200).end('ok');
      const e = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { id?: string; chargeId?: string } };
      const key = `${e.event}:${e.data.id ?? e.data.chargeId}`;
      const waiter = arrivals.get(key);
      if (waiter) waiter();
      else early.add(key);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const arrived = (key: string, n: number) => new Promise<void>((resolve) => {
    let left = n - (early.delete(key) ? 1 : 0);
    if (left === 0) return resolve();
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
  const snapshot = () => ({ api: { ...api }, worker: { ...worker }, sessions: { ...sessions }, t: performance.now() });
  let idle = { statements: 0, commits: 0, flushed: 0 };
  /** Runs `n` operations one at a time and records the per-operation counts, the worker's idle polling over the same time taken out. */
  const measure = async (label: string, n: number, op: (i: number) => Promise<void>) => {
    const s0 = snapshot();
    for (let i = 0; i < n; i++) await op(i);
    await sleep(300); // the worker's bookkeeping after the last delivery
    const s1 = snapshot();
    const ms = s1.t - s0.t;
    const per = (k: keyof Counter, side: 'api' | 'worker') => {
      const v = s1[side][k] - s0[side][k] - (side === 'worker' ? idle[k] * ms : 0);
      return (Math.max(0, v) / n).toFixed(1);
    };
    const own = (k: 'statements' | 'connects') => ((s1.sessions[k] - s0.sessions[k]) / n).toFixed(1);
    rows.push(`| ${label} | ${n} | ${per('statements', 'api')} | ${per('commits', 'api')} | ${per('flushed', 'api')} | ${per('statements', 'worker')} | ${per('commits', 'worker')} | ${per('flushed', 'worker')} | ${own('statements')} | ${own('connects')} |`);
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
    const pm = await postmasterOf(apiPool);
    const i0 = snapshot();
    const idleCpu0 = pm === null ? NaN : postgresCpu(pm);
    await sleep(5000);
    const i1 = snapshot();
    const idleMs = i1.t - i0.t;
    const idleDbCpuPerMs = ((pm === null ? NaN : postgresCpu(pm)) - idleCpu0) / idleMs;
    idle = {
      statements: (i1.worker.statements - i0.worker.statements) / idleMs,
      commits: (i1.worker.commits - i0.worker.commits) / idleMs,
      flushed: (i1.worker.flushed - i0.worker.flushed) / idleMs,
    };

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
    // A payout: the merchant funded by one paid charge, each withdrawal awaited until its event arrives.
    const payer = await merchant();
    await inject('POST', '/webhooks', payer.key, { url: `${hook}/payouts`, events: ['WITHDRAWAL_COMPLETED'] });
    const funding = await inject('POST', '/transparents/create', payer.key, { method: 'PIX', amount: 10_000_000 });
    await inject('POST', `/admin/simulator/charges/${funding.id}/pay`, ADMIN);
    // The event may arrive before the create's answer (processing starts at its commit): kept until asked for.
    const payout = async () => {
      const w = await inject('POST', '/withdrawals', payer.key, { amount: 1000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' });
      await arrived(`WITHDRAWAL_COMPLETED:${w.id}`, 1);
    };
    for (let i = 0; i < 10; i++) await payout(); // warm-up
    await measure('withdrawal: create → COMPLETED → WITHDRAWAL_COMPLETED delivered (SIM_PAYOUT_DELAY_MS=0)', N, payout);
    const payoutCosts = await statementCosts(db.url, N, idleDbCpuPerMs, payout);
    const paid = await Promise.all(Array.from({ length: 2 * N }, () => create(one.key)));
    const costs = await statementCosts(db.url, paid.length, idleDbCpuPerMs, async (i) => {
      const done = arrived(`CHARGE_PAID:${paid[i]}`, 1);
      await inject('POST', `/admin/simulator/charges/${paid[i]}/pay`, ADMIN);
      await done;
    });
    return [
      '| operation | n | API statements/op | API commits/op | API flushed/op | worker statements/op | worker commits/op | worker flushed/op | own sessions: statements/op | connections/op |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `idle worker: ${(idle.statements * 1000).toFixed(1)} statements/s, ${(idle.commits * 1000).toFixed(1)} commits/s; load average ${load()}`,
      ...(costs === null ? [] : ['', `Statements of a paid and delivered payment (pay → CHARGE_PAID, 1 endpoint, ${paid.length} one at a time):`, '', costs]),
      ...(payoutCosts === null ? [] : ['', `Statements of a payout (create → WITHDRAWAL_COMPLETED delivered, ${N} one at a time):`, '', payoutCosts]),
    ].join('\n');
  } finally {
    await w.stop();
    await app.close();
    await new Promise((r) => receiver.close(r));
    for (const p of [apiPool, workerPool]) await p.end();
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
