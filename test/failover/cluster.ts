import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The PostgreSQL whose extension directory holds pg_auto_failover (postgresql-15-auto-failover). */
export function autoFailoverBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root) || !(process.env.PATH ?? '').split(':').some((d) => existsSync(join(d, 'pg_autoctl')))) return null;
  for (const v of readdirSync(root).sort().reverse()) {
    if (existsSync(`/usr/share/postgresql/${v}/extension/pgautofailover.control`) && existsSync(join(root, v, 'bin', 'pg_ctl'))) return join(root, v, 'bin');
  }
  return null;
}

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
}

/**
 * A pg_auto_failover formation on this machine: a monitor and two nodes (synchronous replication, the
 * default with one standby), each under a temp dir, self-signed TLS, trust authentication on loopback.
 * PostgreSQL refuses to run as root, so as root every pg_autoctl runs as the `postgres` user.
 */
export class AutoFailoverCluster {
  private readonly procs: ChildProcess[] = [];
  readonly ports: { monitor: number; nodes: [number, number] };
  readonly dir: string;

  private constructor(private readonly bin: string, ports: [number, number, number]) {
    this.dir = mkdtempSync(join(tmpdir(), 'pixgate-failover-'));
    this.ports = { monitor: ports[0], nodes: [ports[1], ports[2]] };
    if (process.getuid?.() === 0) {
      chownSync(this.dir, Number(readPostgresUid()), -1);
      chmodSync(this.dir, 0o755);
    }
  }

  static async start(bin: string): Promise<AutoFailoverCluster> {
    const c = new AutoFailoverCluster(bin, [await freePort(), await freePort(), await freePort()]);
    try {
      await c.autoctl('create', 'monitor', '--pgdata', c.pgdata('monitor'), '--pgport', String(c.ports.monitor), '--hostname', 'localhost',
        '--auth', 'trust', '--ssl-self-signed');
      c.serve('monitor');
      const monitor = `postgres://autoctl_node@localhost:${c.ports.monitor}/pg_auto_failover?sslmode=require`;
      for (const [i, port] of c.ports.nodes.entries()) {
        await c.retry(() => c.autoctl('create', 'postgres', '--pgdata', c.pgdata(`node${i + 1}`), '--pgport', String(port), '--hostname', 'localhost',
          '--listen', 'localhost', '--auth', 'trust', '--ssl-self-signed', '--monitor', monitor, '--dbname', 'pixgate', '--name', `node${i + 1}`));
        c.serve(`node${i + 1}`);
        // Alone, the first node is 'single'; with its standby, 'primary' and 'secondary'.
        await c.waitFor((s) => s.filter((n) => n.reported === n.assigned && ['single', 'primary', 'secondary'].includes(n.reported)).length === i + 1
          && (i === 0 || s.every((n) => n.reported !== 'single')), 90_000);
      }
      return c;
    } catch (err) {
      await c.stop();
      throw err;
    }
  }

  pgdata(name: string): string {
    return join(this.dir, name);
  }

  private env(): NodeJS.ProcessEnv {
    return {
      PATH: `${this.bin}:${process.env.PATH}`, XDG_CONFIG_HOME: join(this.dir, 'config'), XDG_DATA_HOME: join(this.dir, 'share'),
      XDG_RUNTIME_DIR: join(this.dir, 'run'), HOME: this.dir, PG_CONFIG: join(this.bin, 'pg_config'),
    };
  }

  /** `pg_autoctl ...` as the postgres user when we are root. */
  private command(args: string[]): [string, string[]] {
    const env = Object.entries(this.env()).map(([k, v]) => `${k}=${v}`);
    return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', 'env', ...env, 'pg_autoctl', ...args]] : ['env', [...env, 'pg_autoctl', ...args]];
  }

  async autoctl(...args: string[]): Promise<string> {
    const [cmd, argv] = this.command(args);
    try {
      return (await run(cmd, argv, { cwd: this.dir, maxBuffer: 16 << 20 })).stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`pg_autoctl ${args.slice(0, 2).join(' ')} failed: ${e.message}\n${(e.stderr ?? '').slice(-1500)}`);
    }
  }

  private async retry(fn: () => Promise<unknown>, attempts = 3): Promise<void> {
    for (let i = 1; ; i++) {
      try {
        await fn();
        return;
      } catch (err) {
        if (i >= attempts) throw err;
        await sleep(2000);
      }
    }
  }

  /** `pg_autoctl run` for one data dir, in its own process group so a stop can reach every process. */
  private serve(name: string): void {
    const [cmd, argv] = this.command(['run', '--pgdata', this.pgdata(name)]);
    const proc = spawn(cmd, argv, { cwd: this.dir, detached: true, stdio: 'ignore' });
    this.procs.push(proc);
  }

  async state(): Promise<NodeState[]> {
    const out = await this.autoctl('show', 'state', '--pgdata', this.pgdata('monitor'), '--json');
    return (JSON.parse(out) as Array<Record<string, unknown>>).map((n) => ({
      name: String(n.nodename), port: Number(n.nodeport), reported: String(n.current_group_state ?? n.reported_state), assigned: String(n.assigned_group_state ?? n.assigned_state),
    }));
  }

  async waitFor(ok: (s: NodeState[]) => boolean, timeoutMs: number): Promise<NodeState[]> {
    const deadline = Date.now() + timeoutMs;
    let last: NodeState[] = [];
    while (Date.now() < deadline) {
      last = await this.state().catch(() => last);
      if (ok(last)) return last;
      await sleep(500);
    }
    const raw = await this.autoctl('show', 'state', '--pgdata', this.pgdata('monitor'), '--json').catch((e: Error) => e.message);
    throw new Error(`the formation did not reach the expected state in ${timeoutMs} ms: ${JSON.stringify(last)} ${raw}`);
  }

  async primaryPort(): Promise<number> {
    const s = await this.waitFor((s) => s.some((n) => n.reported === 'primary' && n.assigned === 'primary'), 60_000);
    return s.find((n) => n.reported === 'primary')!.port;
  }

  /** What `pg_autoctl show uri --formation default` prints: the libpq multi-host URI for applications. */
  async uri(): Promise<string> {
    return (await this.autoctl('show', 'uri', '--pgdata', this.pgdata('monitor'), '--formation', 'default')).trim();
  }

  /** `pg_autoctl perform failover`: returns once the standby is primary and the old primary follows it. */
  async failover(): Promise<void> {
    await this.autoctl('perform', 'failover', '--pgdata', this.pgdata('monitor'));
  }

  /**
   * Polls a node every 50 ms until its sessions are read-write; resolves with that moment
   * (performance.now()), to tell the promotion apart from the time the service took to follow it.
   */
  async writableAt(port: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const c = new pg.Client({ host: 'localhost', port, user: 'postgres', database: 'pixgate', ssl: { rejectUnauthorized: false }, connectionTimeoutMillis: 1000 });
      c.on('error', () => {});
      try {
        await c.connect();
        const { rows } = await c.query(`SELECT current_setting('transaction_read_only') AS ro`);
        if (rows[0].ro === 'off') return performance.now();
      } catch { /* restarting */ } finally {
        await c.end().catch(() => {});
      }
      await sleep(50);
    }
    throw new Error(`:${port} did not become writable in ${timeoutMs} ms`);
  }

  /** Stops every node and the monitor, kills what is left, and removes the temp dir. */
  async stop(): Promise<void> {
    for (const name of ['node2', 'node1', 'monitor']) {
      if (existsSync(this.pgdata(name))) await this.autoctl('stop', '--pgdata', this.pgdata(name)).catch(() => {});
    }
    const deadline = Date.now() + 15_000;
    while (this.procs.some((p) => p.exitCode === null && p.signalCode === null) && Date.now() < deadline) await sleep(200);
    for (const p of this.procs) if (p.exitCode === null && p.signalCode === null && p.pid) try { process.kill(-p.pid, 'SIGKILL'); } catch { /* gone */ }
    for (const name of ['node1', 'node2', 'monitor']) {
      const pidFile = join(this.pgdata(name), 'postmaster.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
      if (pid > 0) try { process.kill(pid, 'SIGQUIT'); } catch { /* gone */ }
    }
    await sleep(300);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readPostgresUid(): string {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user: install postgresql-15-auto-failover (it creates one)');
  return line.split(':')[2]!;
}
