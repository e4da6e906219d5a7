/**
 * Sequential payouts of two checkouts in ONE process, for a before/after on a loaded machine: each build's API and
 * worker (as round-trips.ts runs them) on its own database of one server, and 1 s blocks of payouts (create →
 * WITHDRAWAL_COMPLETED received, SIM_PAYOUT_DELAY_MS=0) alternating between the builds, so the load's swings fall
 * on both alike — separate runs (bench:compare … payouts) differ by 2× from one minute to the next. CPU per payout:
 * this process (both builds' idle workers, the client and the receiver included, alike for both) and PostgreSQL's.
 *
 *   node --import tsx bench/payouts-ab.ts <checkout A> <checkout B> [seconds=60]
 *
 * Two checkouts at different paths (the same path would share one module graph, and its wake-ups).
 */
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresCpu } from './lib/cpu.js';
import { freshDatabase, load, startDatabaseServer } from './lib/env.js';

const ADMIN = 'ab-admin-token-of-at-least-32-characters!!';
const roots = { A: process.argv[2]!, B: process.argv[3]! };
const seconds = Number(process.argv[4] ?? 60);
const server = await startDatabaseServer();

async function side(root: string, hook: string) {
  const db = await freshDatabase(server);
  const { loadConfig } = await import(join(root, 'src/config.ts'));
  const { createPool } = await import(join(root, 'src/platform/db.ts'));
  const { buildHttp, createRuntime, runWorker } = await import(join(root, 'src/composition.ts'));
  const config = loadConfig({
    ADMIN_TOKEN: ADMIN, ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_SECOND: '0', SIM_PAYOUT_DELAY_MS: '0',
  }, { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-ab-')) });
  const pool: pg.Pool = createPool(db.url, 20);
  const rt = createRuntime(config, pool);
  const app = await buildHttp(rt);
  const w = await runWorker(rt);
  const inject = async (method: string, url: string, auth: string, body?: unknown) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${auth}`, ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const m = await inject('POST', '/admin/merchants', ADMIN, {
    userName: 'ab', email: 'ab@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja AB' }, pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
  });
  const key = (await inject('POST', `/admin/merchants/${m.id}/api-keys`, ADMIN)).key as string;
  await inject('POST', '/webhooks', key, { url: hook, events: ['WITHDRAWAL_COMPLETED'] });
  for (let i = 0; i < 3; i++) {
    const funding = await inject('POST', '/transparents/create', key, { method: 'PIX', amount: 10_000_000 });
    await inject('POST', `/admin/simulator/charges/${funding.id}/pay`, ADMIN);
  }
  return { inject, key, stop: async () => { await w.stop(); await app.close(); await pool.end(); await db.drop(); } };
}

const waiters = new Map<string, () => void>();
const early = new Set<string>();
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (b: Buffer) => chunks.push(b));
  req.on('end', () => {
    res.writeHead(200).end('ok');
    const id = JSON.parse(Buffer.concat(chunks).toString()).data.id as string;
    const w = waiters.get(id);
    if (w) { waiters.delete(id); w(); } else early.add(id);
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const sides = { A: await side(roots.A, hook), B: await side(roots.B, hook) };
const pmPool = new pg.Pool({ connectionString: server.url, max: 1 });
const pid = (await pmPool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
const pm = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
await pmPool.end();

async function payout(s: typeof sides.A) {
  const w = await s.inject('POST', '/withdrawals', s.key, { amount: 1000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' });
  if (early.delete(w.id)) return;
  await new Promise<void>((r) => waiters.set(w.id, r));
}
for (const s of [sides.A, sides.B]) for (let i = 0; i < 30; i++) await payout(s); // warm-up
const tot = { A: { n: 0, ms: 0, node: 0, db: 0 }, B: { n: 0, ms: 0, node: 0, db: 0 } };
console.log(`A/B payouts in one process, ${seconds} s, load ${load()}\nA=${roots.A}\nB=${roots.B}`);
const t0 = Date.now();
let round = 0;
while (Date.now() - t0 < seconds * 1000) {
  for (const name of (round++ % 2 ? ['B', 'A'] : ['A', 'B']) as Array<'A' | 'B'>) {
    const c0 = process.cpuUsage(); const d0 = postgresCpu(pm); const w0 = performance.now();
    let n = 0;
    while (performance.now() - w0 < 1000) { await payout(sides[name]); n++; }
    const c = process.cpuUsage(c0);
    tot[name].n += n; tot[name].ms += performance.now() - w0; tot[name].node += (c.user + c.system) / 1000; tot[name].db += postgresCpu(pm) - d0;
  }
}
for (const name of ['A', 'B'] as const) {
  const t = tot[name];
  console.log(`${name}: ${t.n} payouts, ${(t.n / t.ms * 1000).toFixed(1)}/s, process CPU ${(t.node / t.n).toFixed(2)} ms/payout, PostgreSQL CPU ${(t.db / t.n).toFixed(2)} ms/payout, wall ${(t.ms / t.n).toFixed(2)} ms/payout`);
}
console.log(`load at end ${load()}`);
for (const s of [sides.A, sides.B]) await s.stop();
receiver.close();
await server.stop();
