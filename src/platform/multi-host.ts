import { randomInt } from 'node:crypto';
import pg from 'pg';
import { forHost, sslAttempts, type SslAttempt } from './multi-host-ssl.js';
import { type ConnectionSpec, type HostAddress, type SessionAttrs } from './multi-host-uri.js';

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
export const READ_ONLY = '25006'; // read_only_sql_transaction: a write reached a standby or a demoted primary

export const ROLE_QUERY = `SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only`;
export type Role = { standby: boolean; read_only: boolean };
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
    if (this.spec.loadBalance) {
      // load_balance_hosts=random: a uniform shuffle (Fisher–Yates), as libpq does.
      for (let i = order.length - 1; i > 0; i--) {
        const j = randomInt(i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
    }
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
