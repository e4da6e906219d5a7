import pg from 'pg';
import { forHost, sslAttempts, type SslAttempt } from './multi-host-ssl.js';
import { parseConnectionUri, type ConnectionSpec, type HostAddress, type SessionAttrs } from './multi-host-uri.js';

/** One host as the pool connects to it: the address, and the TLS choice its probe settled on. */
export interface Target extends HostAddress {
  ssl: SslAttempt;
}

// Connection lost, refused or the server going away: the host in use may no longer be the one to use.
const HOST_GONE = /^(08|57P0[123]$)|^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/;
export const isHostGone = (err: unknown): boolean => {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && HOST_GONE.test(code))
    || (typeof message === 'string' && /^(Connection terminated|timeout expired|Client has encountered a connection error)/.test(message));
};
const READ_ONLY = '25006'; // read_only_sql_transaction: a write reached a standby or a demoted primary

const ROLE_QUERY = `SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only`;
type Role = { standby: boolean; read_only: boolean };
const fits = (attrs: SessionAttrs, r: Role): boolean =>
  attrs === 'read-write' ? !r.read_only : attrs === 'read-only' ? r.read_only : attrs === 'primary' ? !r.standby
    : attrs === 'standby' ? r.standby : true;

const unavailable = (message: string) => Object.assign(new Error(message), { code: '08001' }); // could not establish a connection

/**
 * Chooses the host every new connection of a pool goes to, libpq style: the hosts in order (shuffled
 * with load_balance_hosts=random), each tried with the sslmode's TLS choices, the first whose session
 * fits target_session_attrs kept. The choice is remembered until evidence says it changed — a connection
 * to it fails, or a session there turns out read-only — and then made again, so a pool follows a failover.
 */
export class HostChooser {
  private current: Target | null;
  private probing: Promise<Target> | null = null;
  private readonly live = new Map<pg.Client, Target>();
  private readonly attempts: SslAttempt[];
  /** One host, one way to connect, no role to check: nothing to choose. */
  private readonly fixed: boolean;
  changes = 0;

  constructor(readonly spec: ConnectionSpec, private readonly base: pg.ClientConfig) {
    this.attempts = sslAttempts(spec);
    this.fixed = spec.hosts.length === 1 && this.attempts.length === 1 && spec.targetSessionAttrs === 'any';
    this.current = this.fixed ? this.targetOf(spec.hosts[0]!, this.attempts[0]!) : null;
  }

  get checksRole(): boolean {
    return this.spec.targetSessionAttrs !== 'any';
  }

  target(): Promise<Target> {
    if (this.current) return Promise.resolve(this.current);
    return (this.probing ??= this.probe().finally(() => (this.probing = null)));
  }

  configFor(t: Target): pg.ClientConfig {
    return { ...this.base, host: t.hostaddr ?? t.host, port: t.port, ssl: t.ssl };
  }

  fits(role: Role): boolean {
    return fits(this.spec.targetSessionAttrs === 'prefer-standby' ? 'any' : this.spec.targetSessionAttrs, role);
  }

  /** The host stopped answering: choose again at the next connection. */
  lost(t: Target): void {
    if (this.current === t && !this.fixed) this.current = null;
  }

  /** The host's sessions are read-only now (a demoted primary): every connection there is cut. */
  demoted(t: Target): void {
    if (!this.checksRole) return;
    if (this.current === t) this.current = null;
    for (const [client, at] of this.live) if (at === t) (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }

  track(client: pg.Client, t: Target): void {
    this.live.set(client, t);
    client.once('end', () => this.live.delete(client));
  }

  private targetOf(h: HostAddress, attempt: SslAttempt): Target {
    return { ...h, ssl: forHost(attempt, h.host, h.hostaddr, this.spec.sslsni) };
  }

  private async probe(): Promise<Target> {
    const order = [...this.spec.hosts];
    if (this.spec.loadBalance) order.sort(() => Math.random() - 0.5);
    const passes: SessionAttrs[] = this.spec.targetSessionAttrs === 'prefer-standby' ? ['standby', 'any'] : [this.spec.targetSessionAttrs];
    const failures: string[] = [];
    for (const attrs of passes) {
      for (const host of order) {
        for (const attempt of this.attempts) {
          const t = this.targetOf(host, attempt);
          const client = new pg.Client(this.configFor(t));
          client.on('error', () => {});
          try {
            await client.connect();
            const role = attrs === 'any' ? null : (await client.query<Role>(ROLE_QUERY)).rows[0]!;
            if (role && !fits(attrs, role)) {
              failures.push(`${host.host}:${host.port} is ${role.standby ? 'a standby' : 'read-only'}`);
              break; // the next host: TLS or not, this one is the wrong kind
            }
            this.current = t;
            this.changes++;
            return t;
          } catch (err) {
            failures.push(`${host.host}:${host.port}${t.ssl ? ' (TLS)' : ''}: ${(err as Error).message}`);
            if (/ECONNREFUSED|ENOTFOUND|timeout/.test(String((err as { code?: string }).code ?? (err as Error).message))) break;
          } finally {
            await client.end().catch(() => {});
          }
        }
      }
    }
    throw unavailable(`no ${this.spec.targetSessionAttrs} PostgreSQL server: ${failures.join('; ')}`);
  }
}

export interface MultiHostPoolConfig {
  Client: typeof pg.Client;
  chooser: HostChooser;
  /** What the pool's own constructor would read from a connection string. */
  base: pg.ClientConfig;
}

type Aimable = { host: string; port: number; ssl: unknown; connection: { ssl: unknown }; connectionParameters: { host: string; port: number } };

/**
 * A pg.Client class for pg.Pool (its `Client` option) whose connect() first asks the chooser where to go,
 * checks the session's role when target_session_attrs asks for one, and reports what it sees: a failed
 * connect or a read-only error on any query makes the chooser choose again. graphile-worker takes the
 * same pool, so it follows too.
 */
export function multiHostPoolConfig(uri: string, env: NodeJS.ProcessEnv = process.env): MultiHostPoolConfig {
  const spec = parseConnectionUri(uri, env);
  const base: pg.ClientConfig = {
    user: spec.user,
    database: spec.database,
    ...(spec.password !== undefined ? { password: spec.password } : {}),
    ...(spec.applicationName ? { application_name: spec.applicationName } : {}),
    ...(spec.options ? { options: spec.options } : {}),
    ...(spec.connectTimeout ? { connectionTimeoutMillis: spec.connectTimeout * 1000 } : {}),
    keepAlive: spec.keepalives,
    ...(spec.keepalivesIdle ? { keepAliveInitialDelayMillis: spec.keepalivesIdle * 1000 } : {}),
  };
  const chooser = new HostChooser(spec, base);

  class MultiHostClient extends pg.Client {
    private target: Target | null = null;

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
      const done = this.connectToTarget().then(() => this);
      if (!callback) return done;
      const cb = callback as (err: Error | null, c?: pg.Client) => void;
      done.then((c) => cb(null, c), (err: Error) => cb(err));
    }

    private async connectToTarget(): Promise<void> {
      const t = await chooser.target();
      const self = this as unknown as Aimable;
      const { host, port, ssl } = chooser.configFor(t);
      Object.assign(self, { host, port, ssl });
      self.connection.ssl = ssl;
      Object.assign(self.connectionParameters, { host: t.host, port: t.port });
      try {
        await super.connect();
      } catch (err) {
        chooser.lost(t);
        throw err;
      }
      if (chooser.checksRole) {
        const role = (await super.query<Role>(ROLE_QUERY)).rows[0]!;
        if (!chooser.fits(role)) {
          chooser.demoted(t);
          await this.end().catch(() => {});
          throw Object.assign(new Error(`${t.host}:${t.port} is no longer ${chooser.spec.targetSessionAttrs}`), { code: READ_ONLY });
        }
      }
      this.target = t;
      chooser.track(this, t);
    }

    override query(...args: unknown[]): never {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') args[last] = (err: unknown, res: unknown) => (this.saw(err), callback(err, res));
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result instanceof Promise) result.then(undefined, (err: unknown) => this.saw(err));
      return result as never;
    }

    private saw(err: unknown): void {
      if (!err || !this.target) return;
      if ((err as { code?: string }).code === READ_ONLY) chooser.demoted(this.target);
      else if (isHostGone(err)) chooser.lost(this.target);
    }
  }

  return { Client: MultiHostClient, chooser, base };
}
