/**
 * The statement at scale (issue 14, docs/contract/statement.md#statement), run on its own:
 *   node --import tsx bench/statement.ts            (STATEMENT_LINES=10000000 STATEMENT_EXPORT_LINES=1000000)
 * Seeds one merchant with STATEMENT_LINES generated lines (INSERT ... SELECT generate_series: postings and
 * their lines, as ledger_post writes them, spread over a year), then times statement pages over HTTP
 * (goal < 50 ms) and prints the page query's EXPLAIN (ANALYZE, BUFFERS); then exports the newest
 * STATEMENT_EXPORT_LINES lines as CSV and as OFX, reporting time and the server's RSS before, at its peak and
 * the increase (goals < 60 s, < 100 MB), and, for comparison, its RSS under STATEMENT_PAGES_SECONDS (20) of pages alone.
 * The server is Pixgate as `npm start` runs it, in a child process, on a fresh database.
 *   node --import tsx bench/statement.ts postings   (STATEMENT_AB_SECONDS=3)
 * A/B of the money path alone: ledger_post as migration 0006 left it (A: the migrations before 0011) and
 * with statement lines (B: all of them), on two fresh databases, runs interleaved A B A B: credits to one
 * hot merchant, to 100 merchants, and a hot mix with 10% debits, 8 connections, one posting per transaction.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { load, machine, startDatabaseServer } from './lib/env.js';
import { withDatabaseName } from '../src/platform/database.js';
import { PROJECT_ROOT } from '../src/config.js';
import { createPool } from '../src/platform/db.js';
import { verifyLedger } from '../src/ledger/verify.js';
import { withPixgate } from './lib/rig.js';
import { keysetPage } from '../src/platform/pagination.js';
import { Cursors } from '../src/platform/pagination.js';
import { pageQuery } from '../src/statement/statement.sql.js';

const LINES = Number(process.env.STATEMENT_LINES ?? 10_000_000);
const EXPORT_LINES = Math.min(LINES, Number(process.env.STATEMENT_EXPORT_LINES ?? 1_000_000));
const SEED_BATCH = 1_000_000;
const PAGES_SECONDS = Number(process.env.STATEMENT_PAGES_SECONDS ?? 20);
const YEAR_MS = 365 * 86_400_000;

/** Line s (1-based) of the account: odd lines credit 1000, even ones debit 500, one every YEAR/LINES, ending now. */
async function seed(pool: pg.Pool, merchantId: string): Promise<void> {
  const account = `${merchantId}:available`;
  const client = await pool.connect();
  try {
    await client.query('SET synchronous_commit = off');
    const { rows: [base] } = await client.query<{ id: number }>("SELECT nextval('ledger_transactions_id_seq') AS id");
    const stepMs = YEAR_MS / LINES;
    for (let lo = 1; lo <= LINES; lo += SEED_BATCH) {
      const hi = Math.min(LINES, lo + SEED_BATCH - 1);
      const at = `now() - (($3::bigint - s) * $4::float8) * interval '1 millisecond'`;
      await client.query(
        `INSERT INTO ledger_transactions (id, kind, reference, created_at)
         SELECT $5::bigint + s, CASE WHEN s % 2 = 1 THEN 'CHARGE_PAYMENT' ELSE 'REFUND' END, 'bench_' || s, date_trunc('milliseconds', ${at})
         FROM generate_series($1::bigint, $2::bigint) s`,
        [lo, hi, LINES, stepMs, base!.id],
      );
      await client.query(
        `INSERT INTO statement_lines (account_id, seq, id, transaction_id, amount, balance_after, created_at)
         SELECT $6, s, statement_line_id(s), $5::bigint + s, CASE WHEN s % 2 = 1 THEN 1000 ELSE -500 END,
                ((s + 1) / 2) * 1000 - (s / 2) * 500, date_trunc('milliseconds', ${at})
         FROM generate_series($1::bigint, $2::bigint) s`,
        [lo, hi, LINES, stepMs, base!.id, account],
      );
      process.stdout.write(`  seeded ${hi.toLocaleString('en')} lines (${load()})\n`);
    }
    await client.query(`SELECT setval('ledger_transactions_id_seq', $1)`, [base!.id + LINES]);
    await client.query(
      `UPDATE ledger_accounts SET balance = ((($1::bigint + 1) / 2) * 1000 - ($1::bigint / 2) * 500), line_seq = $1, line_at = now() WHERE id = $2`,
      [LINES, account],
    );
    await client.query('VACUUM ANALYZE statement_lines');
    await client.query('VACUUM ANALYZE ledger_transactions');
  } finally {
    client.release();
  }
}

const rssKb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0; // the process just ended
  }
};
/** The child processes of `pid` (an export runs in one of the server's). */
const childrenOf = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const server = await startDatabaseServer();
  console.log(`# statement benchmark — ${new Date().toISOString()}\nmachine: ${machine()}; load: ${load()}; lines: ${LINES.toLocaleString('en')}; export: ${EXPORT_LINES.toLocaleString('en')}\n`);
  try {
    await withPixgate(server, {}, async ({ pixgate, fx, pool }) => {
      const m = await fx.merchant();
      const [, seedMs] = await timed(() => seed(pool, m.id));
      console.log(`seeding: ${(seedMs / 1000).toFixed(0)} s`);
      const get = async (path: string) => {
        const res = await fetch(`${pixgate.base}${path}`, { headers: { authorization: `Bearer ${m.key}` } });
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res;
      };
      const page = async (query: string) => (await get(`/me/statement?${query}`)).json() as Promise<{ data: Array<{ createdAt: string }>; pagination: { next: string } }>;
      await page('limit=20'); // warm the connection and the plan
      const first: number[] = [];
      const deep: number[] = [];
      const ranged: number[] = [];
      let cursor = (await page('limit=100')).pagination.next;
      const mid = new Date(Date.now() - YEAR_MS / 2).toISOString();
      const midTo = new Date(Date.now() - YEAR_MS / 2 + 86_400_000).toISOString();
      for (let i = 0; i < 20; i++) {
        first.push((await timed(() => page('limit=20')))[1]);
        const [p, ms] = await timed(() => page(`limit=100&after=${encodeURIComponent(cursor)}`));
        deep.push(ms);
        cursor = p.pagination.next;
        ranged.push((await timed(() => page(`limit=100&from=${mid}&to=${midTo}`)))[1]);
      }
      console.log('\n| page (over HTTP, 20 runs each) | median ms | max ms |\n|---|---:|---:|');
      for (const [label, xs] of [['first page, limit 20', first], ['next pages by cursor, limit 100', deep], ['a day half a year back (from/to), limit 100', ranged]] as const) {
        console.log(`| ${label} | ${median(xs).toFixed(1)} | ${Math.max(...xs).toFixed(1)} |`);
      }

      // The page's SQL exactly as the service sends it, with a cursor half-way back.
      const { rows: [at] } = await pool.query<{ created_at: Date; id: string }>(
        'SELECT created_at, id FROM statement_lines WHERE account_id = $1 AND seq = $2', [`${m.id}:available`, Math.floor(LINES / 2)]);
      const captured: { sql: string; params: unknown[] }[] = [];
      const spy = { query: (sql: string, params: unknown[]) => (captured.push({ sql, params }), pool.query(sql, params)) };
      const cursors = new Cursors(Buffer.alloc(32));
      const scope = { merchantId: m.id, list: 'statement', account: 'available', from: null, to: null };
      const after = cursors.encode(scope, 'after', { t: at!.created_at.toISOString(), i: at!.id });
      await keysetPage(spy as never, cursors, scope, pageQuery(m.id, 'AVAILABLE', { from: '-infinity', to: 'infinity' }), { limit: 20, after });
      const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${captured[0]!.sql}`, captured[0]!.params);
      console.log('\nEXPLAIN (ANALYZE, BUFFERS) of a page half-way back (limit 20):\n```');
      for (const r of plan.rows) console.log(r['QUERY PLAN']);
      console.log('```');

      const from = (await pool.query<{ created_at: Date }>(
        'SELECT created_at FROM statement_lines WHERE account_id = $1 AND seq = $2', [`${m.id}:available`, LINES - EXPORT_LINES + 1])).rows[0]!.created_at.toISOString();
      // RSS of the server process (the child `pixgate serve`) and of the largest of its own children (the
      // export process), sampled every 50 ms while `fn` runs.
      const pid = pixgate.child.pid!;
      const measured = async <T>(fn: () => Promise<T>) => {
        const before = rssKb(pid);
        let peak = before;
        let child = 0;
        const sample = () => {
          peak = Math.max(peak, rssKb(pid));
          for (const c of childrenOf(pid)) child = Math.max(child, rssKb(c));
        };
        const sampler = setInterval(sample, 50);
        const [out, ms] = await timed(fn).finally(() => clearInterval(sampler));
        sample();
        return { out, ms, before: before / 1024, peak: peak / 1024, child: child / 1024 };
      };
      const mb = (x: number) => x.toFixed(0);
      // First the same server under ordinary requests alone, for about as long as an export takes: V8 sizes
      // its heap for any sustained allocation, so this is what an export's increase is to be compared with.
      const pages = await measured(async () => {
        const until = performance.now() + PAGES_SECONDS * 1000;
        let n = 0;
        await Promise.all(Array.from({ length: 4 }, async () => {
          for (; performance.now() < until; n++) await page('limit=100');
        }));
        return n;
      });
      const noExport = `| (no export, run before them: ${pages.out.toLocaleString('en')} pages of 100, 4 clients) | ${(pages.ms / 1000).toFixed(1)} | | | | ${mb(pages.before)} | ${mb(pages.peak)} | ${mb(pages.peak - pages.before)} | ${load()} |`;
      console.log(`\n| export of ${EXPORT_LINES.toLocaleString('en')} lines | s | MB sent | lines | **export process peak RSS MB** | server RSS before MB | peak MB | increase MB | load |\n|---|---:|---:|---:|---:|---:|---:|---:|---|`);
      for (const kind of ['csv', 'ofx'] as const) {
        const r = await measured(async () => {
          const res = await get(`/me/statement.${kind}?from=${encodeURIComponent(from)}`);
          let bytes = 0;
          let lines = 0;
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            bytes += chunk.length;
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          }
          return { bytes, lines };
        });
        console.log(`| ${kind.toUpperCase()} | ${(r.ms / 1000).toFixed(1)} | ${(r.out.bytes / 2 ** 20).toFixed(0)} | ${r.out.lines.toLocaleString('en')} | **${mb(r.child)}** | ${mb(r.before)} | ${mb(r.peak)} | ${mb(r.peak - r.before)} | ${load()} |`);
      }
      console.log(noExport);
    });
  } finally {
    await server.stop();
  }
}

/** A database without migrations (each side of the A/B applies its own), dropped by `drop`. */
async function emptyDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pixgate_ab_${Math.random().toString(36).slice(2, 10)}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(sql).finally(() => c.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: withDatabaseName(serverUrl, name), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function postingsAB(): Promise<void> {
  const server = await startDatabaseServer();
  const seconds = Number(process.env.STATEMENT_AB_SECONDS ?? 3);
  const files = readdirSync(join(PROJECT_ROOT, 'migrations')).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort();
  const make = async (label: string, upTo: number) => {
    const db = await emptyDatabase(server.url);
    const pool = createPool(db.url, 9);
    for (const f of files.filter((x) => Number(x.slice(0, 4)) <= upTo)) {
      await pool.query(`BEGIN; ${readFileSync(join(PROJECT_ROOT, 'migrations', f), 'utf8')}; COMMIT;`);
    }
    await pool.query(`INSERT INTO merchants (id, user_name, email) SELECT 'mer_' || i, 'm', 'm@x' FROM generate_series(0, 99) i`);
    await pool.query(`INSERT INTO ledger_accounts (id, merchant_id, kind) SELECT 'mer_' || i || ':' || lower(k), 'mer_' || i, k
                      FROM generate_series(0, 99) i, unnest(ARRAY['AVAILABLE', 'PENDING', 'BLOCKED']) k`);
    return { label, db, pool };
  };
  const post = (db: pg.Pool, account: string, amount: number) => db.query(
    'SELECT ledger_post($1, $2, $3::text[], $4::bigint[])', ['BENCH', 'bench', ['platform:psp_clearing', account], [-amount, amount]]);
  const runs = [await make('A: before 0011', 10), await make('B: with 0011', 99)];
  for (const r of runs) for (let i = 0; i < 100; i++) await post(r.pool, `mer_${i}:available`, 1_000_000);
  const scenarios: Array<[string, () => [string, number]]> = [
    ['credits to 1 hot merchant', () => ['mer_0:available', 1000]],
    ['credits spread over 100 merchants', () => [`mer_${Math.floor(Math.random() * 100)}:available`, 1000]],
    ['1 hot merchant, 10% debits', () => ['mer_0:available', Math.random() < 0.1 ? -900 : 1000]],
  ];
  console.log(`# ledger_post A/B — ${new Date().toISOString()}; ${machine()}; load ${load()}\n\n| scenario | ${runs.map((r) => r.label).join(' postings/s | ')} postings/s |\n|---|---:|---:|`);
  for (const [label, next] of scenarios) {
    const rates = runs.map(() => [] as number[]);
    for (let round = 0; round < 2; round++) {
      for (const [i, r] of runs.entries()) {
        let done = 0;
        const until = performance.now() + seconds * 1000;
        await Promise.all(Array.from({ length: 8 }, async () => {
          while (performance.now() < until) {
            const [account, amount] = next();
            await post(r.pool, account, amount).catch(() => {});
            done++;
          }
        }));
        rates[i]!.push(done / seconds);
      }
    }
    console.log(`| ${label} | ${rates.map((xs) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(0)).join(' | ')} |`);
  }
  const problems = await verifyLedger(runs[1]!.pool);
  console.log(`\nB's ledger and statement afterwards: ${problems.length ? `BROKEN: ${problems.slice(0, 3).join('; ')}` : 'verifyLedger() found no problem'}.`);
  for (const r of runs) {
    await r.pool.end();
    await r.db.drop();
  }
  console.log(`load at end: ${load()}`);
  await server.stop();
}

(process.argv[2] === 'postings' ? postingsAB() : main()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
