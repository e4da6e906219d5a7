import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PROJECT_ROOT } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';
import { migrate } from '../../src/platform/migrate.js';

export const ADMIN_TOKEN = 'bench-admin-token-of-at-least-32-characters';
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

/** The PostgreSQL server of the run: DATABASE_URL's, or an embedded one under .data/bench. */
export interface BenchServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function startDatabaseServer(): Promise<BenchServer> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false, stop: async () => {} };
  const server: EmbeddedDatabase = await startEmbeddedPostgres(join(PROJECT_ROOT, '.data', 'bench'));
  return { url: server.url, embedded: true, stop: () => server.stop() };
}

/** A fresh, migrated database for one benchmark; dropped by the returned `drop`. */
export async function freshDatabase(server: BenchServer): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pixgate_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = withDatabaseName(server.url, name);
  const pool = createPool(url, 2);
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  return { url, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export interface ChildServer {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function waitHealthy(base: string, path: string, child: ChildProcess, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before answering`);
    const ok = await fetch(base + path).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`server at ${base} did not answer ${path} within ${ms} ms`);
}

function stopper(child: ChildProcess) {
  return async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
}

/**
 * Pixgate exactly as `npm start` runs it (API and worker in one process, src/main.ts serve), in a child
 * process so the load generator does not share its event loop. Logs at the default level go to /dev/null.
 */
/** BENCH_PIXGATE_ROOT runs the server from another checkout (e.g. the commit before a change), for before/after figures. */
export async function startPixgate(
  databaseUrl: string, env: Record<string, string> = {}, root = process.env.BENCH_PIXGATE_ROOT || PROJECT_ROOT,
): Promise<ChildServer> {
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server under load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(root, 'src/main.ts'), 'serve'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN, ENCRYPTION_KEY,
      PIXGATE_DATA_DIR: join(PROJECT_ROOT, '.data', 'bench'), RATE_LIMIT_PER_SECOND: '0', WEBHOOK_ALLOW_PRIVATE: 'true', ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, '/health', child);
  return { base, child, stop: stopper(child) };
}

/** The ceilings (bench/servers/ceiling.ts), also in a child process, on a pool of the same size. */
export async function startCeiling(databaseUrl: string): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bench/servers/ceiling.ts')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), PIXGATE_ROOT: process.env.BENCH_PIXGATE_ROOT ?? '' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, '/health', child);
  return { base, child, stop: stopper(child) };
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/**
 * The NOTIFY floor (bench/servers/notify-floor.ts) for `durationMs`, in a child process: its hand-offs per
 * second and, with `meter` (cpuMeter of the child), the CPU of the child and of PostgreSQL over the timed part.
 */
export async function runNotifyFloor<C>(
  databaseUrl: string, durationMs: number, meter: (pid: number) => () => () => C,
): Promise<{ ops: number; elapsedMs: number; cpu: C }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bench/servers/notify-floor.ts')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, DURATION_MS: String(durationMs) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let waiter: (() => void) | null = null;
  let buffered = '';
  child.stdout!.on('data', (c: Buffer) => {
    buffered += c.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts.filter(Boolean));
    waiter?.();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const nextLine = async (): Promise<string> => {
    while (lines.length === 0) {
      if (child.exitCode !== null) throw new Error(`notify floor exited with ${child.exitCode}`);
      await Promise.race([new Promise<void>((r) => { waiter = r; }), exited]);
    }
    return lines.shift()!;
  };
  if ((await nextLine()) !== 'ready') throw new Error('notify floor: unexpected first line');
  const stop = meter(child.pid!)();
  child.stdin!.write('go\n');
  const result = JSON.parse(await nextLine()) as { ops: number; elapsedMs: number };
  const cpu = stop();
  child.stdin!.end();
  await exited;
  return { ...result, cpu };
}
