import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test can cut: `cut()` drops every open connection and resets
 * new ones, as a database restart or a failover does to the service; `restore()` lets connections through
 * again. The service is pointed at it with `via(url)`.
 */
export class DbProxy {
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private port = 0;

  private constructor(private readonly server: net.Server) {}

  static async start(target: string): Promise<DbProxy> {
    const { hostname, port } = new URL(target);
    const proxy: DbProxy = new DbProxy(net.createServer((client) => {
      if (proxy.down) return void client.destroy();
      const upstream = net.connect(Number(port || 5432), hostname);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('error', drop);
        s.on('close', () => {
          proxy.sockets.delete(s);
          drop();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    }));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as net.AddressInfo).port;
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
