import net from 'node:net';

/** A statement the proxy is to cut: whether it reaches the database first, and what to call once it is cut. */
interface Armed {
  text: string;
  /** It runs and its answer is lost (true), or its connection is dropped before it is sent (false). */
  runs: boolean;
  done: () => void;
}

/**
 * A TCP proxy in front of PostgreSQL that a test can cut: `cut()` drops every open connection and resets
 * new ones, as a database restart or a failover does to the service; `restore()` lets connections through
 * again; `loseAnswerTo(text)` lets one statement reach the database and run, and drops its connection before
 * the answer comes back — what a failover does to a commit it cuts while the commit waits for the standby
 * (the work is committed, the client only sees its connection end); `cutAt(text)` drops the connection of one
 * statement before it is sent. The service is pointed at it with `via(url)`.
 */
export class DbProxy {
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private port = 0;
  private armed: Armed | null = null;

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
      const reader = new FrontendReader();
      let losing: Armed | null = null;
      client.on('data', (chunk: Buffer) => {
        const armed = proxy.armed;
        if (reader.read(chunk, armed?.text ?? null) && armed) {
          proxy.armed = null;
          if (!armed.runs) {
            drop();
            return armed.done();
          }
          losing = armed;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        // PostgreSQL flushes a statement's answer with its ReadyForQuery, after the commit: the first chunk
        // back means the work is done; the client never sees it.
        if (!losing) return void client.write(chunk);
        losing.done();
        drop();
      });
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

  /**
   * The next statement whose text contains `text` (sent plain, or bound to a statement prepared with it) runs,
   * and its connection is dropped before its answer reaches the client. Resolves once the answer was lost.
   */
  loseAnswerTo(text: string): Promise<void> {
    return new Promise((done) => (this.armed = { text, runs: true, done }));
  }

  /**
   * The next statement whose text contains `text` never reaches the database: its connection is dropped as
   * the client sends it (a primary stopping under a transaction about to commit). Resolves once it was cut.
   */
  cutAt(text: string): Promise<void> {
    return new Promise((done) => (this.armed = { text, runs: false, done }));
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The client's side of one connection, read as PostgreSQL's frontend protocol frames it (an untyped startup
 * message, then a type byte and a length per message), to tell which statement a Query or Bind runs: a
 * prepared statement's text is sent once, in its Parse, and later only named in Binds.
 */
class FrontendReader {
  private buffer = Buffer.alloc(0);
  private started = false;
  /** Statements prepared on this connection (by name, '' the unnamed one) and their text. */
  private readonly prepared = new Map<string, string>();

  /** Takes the chunk in; true when a message in it runs a statement whose text contains `text`. */
  read(chunk: Buffer, text: string | null): boolean {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    let hit = false;
    for (;;) {
      const typed = this.started ? 1 : 0;
      if (this.buffer.length < typed + 4) break;
      const size = typed + this.buffer.readInt32BE(typed);
      if (this.buffer.length < size) break;
      const type = typed ? String.fromCharCode(this.buffer[0]!) : '';
      const body = this.buffer.subarray(typed + 4, size);
      this.buffer = this.buffer.subarray(size);
      // An SSLRequest or GSSENCRequest is answered before the startup message: still untyped after it.
      if (!typed && body.length >= 4 && body.readInt32BE(0) !== 80877103 && body.readInt32BE(0) !== 80877104) this.started = true;
      const [first, second] = cstrings(body);
      if (type === 'P') this.prepared.set(first ?? '', second ?? '');
      const statement = type === 'Q' ? first : type === 'B' ? this.prepared.get(second ?? '') : undefined;
      if (text !== null && statement?.includes(text)) hit = true;
    }
    return hit;
  }
}

/** The first two NUL-terminated strings of a message body. */
function cstrings(body: Buffer): [string?, string?] {
  const end1 = body.indexOf(0);
  if (end1 < 0) return [];
  const end2 = body.indexOf(0, end1 + 1);
  return [body.toString('utf8', 0, end1), end2 < 0 ? undefined : body.toString('utf8', end1 + 1, end2)];
}
