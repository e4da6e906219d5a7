import { rmSync } from 'node:fs';
import net from 'node:net';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/platform/embedded-postgres.js';

/**
 * A PostgreSQL server this test owns, so it can restart it, behind a TCP proxy on a port that never
 * changes: the embedded server picks a new port at each start, but the service keeps one
 * DATABASE_URL and must ride out the restart on its own (reconnecting pools, worker, retried jobs).
 */
export class RestartablePostgres {
  private server: EmbeddedDatabase | null = null;
  private target = 0;
  private password = '';
  private readonly sockets = new Set<net.Socket>();
  private readonly proxy: net.Server;
  port = 0;
  restarts = 0;

  private constructor(private readonly dir: string) {
    this.proxy = net.createServer((client) => {
      const upstream = net.connect(this.target, '127.0.0.1');
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', drop);
        s.on('close', () => {
          this.sockets.delete(s);
          drop();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }

  static async start(dir: string): Promise<RestartablePostgres> {
    const db = new RestartablePostgres(dir);
    await db.startServer();
    await new Promise<void>((resolve) => db.proxy.listen(0, '127.0.0.1', resolve));
    db.port = (db.proxy.address() as net.AddressInfo).port;
    return db;
  }

  private async startServer(): Promise<void> {
    this.server = await startEmbeddedPostgres(this.dir);
    const u = new URL(this.server.url);
    this.target = Number(u.port);
    this.password = decodeURIComponent(u.password);
  }

  url(database = 'postgres'): string {
    return `postgres://postgres:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/${database}`;
  }

  /** Stops the server (fast shutdown: every connection is cut) and starts it again on the same data. */
  async restart(downMs: number): Promise<void> {
    await this.server?.stop();
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => setTimeout(r, downMs));
    await this.startServer();
    this.restarts++;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.proxy.close(r));
    await this.server?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
