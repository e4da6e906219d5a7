import pg from 'pg';
import { HostChooser, isHostGone, READ_ONLY, ROLE_QUERY, type Role, type Target } from './multi-host.js';
import { parseConnectionUri } from './multi-host-uri.js';

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
        const role = await super.query<Role>(ROLE_QUERY).then((r) => r.rows[0]!, async (err: unknown) => {
          await this.end().catch(() => {});
          throw err;
        });
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
