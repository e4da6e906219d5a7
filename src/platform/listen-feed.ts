import type pg from 'pg';

type Listener = () => void;

/**
 * One LISTEN connection per process for a channel, fanned out to in-process listeners by the notification's
 * payload, a key such as a row id. The slice that owns the channel (and the trigger that notifies it) builds the
 * feed and subscribes; the database notifies at commit, whichever process made the change.
 * The connection is opened when the first listener waits. If it breaks, every listener is told to look again (a
 * notification may have been missed) and the feed reconnects.
 */
export class ListenFeed {
  private readonly waiting = new Map<string, Set<Listener>>();
  private client: pg.PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly pool: pg.Pool, private readonly channel: string) {
    // An identifier in the statement's text, not a parameter: only a plain lower-case name is accepted.
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid LISTEN channel: ${channel}`);
  }

  async subscribe(key: string, listener: Listener): Promise<() => void> {
    let set = this.waiting.get(key);
    if (!set) this.waiting.set(key, set = new Set());
    set.add(listener);
    const unsubscribe = () => {
      set!.delete(listener);
      if (set!.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
    };
    try {
      await this.listen();
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => {});
    this.client?.release(true);
    this.client = null;
  }

  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error(`${this.channel} feed closed`));
    this.connecting ??= (async () => {
      const client = await this.pool.connect();
      client.on('notification', (msg) => this.notify(msg.payload ?? ''));
      client.on('error', () => this.drop(client));
      await client.query(`LISTEN ${this.channel}`);
      this.client = client;
    })().finally(() => { this.connecting = null; });
    return this.connecting;
  }

  private notify(key: string): void {
    for (const listener of this.waiting.get(key) ?? []) listener();
  }

  private drop(client: pg.PoolClient): void {
    if (this.client !== client) return;
    this.client = null;
    client.release(true);
    for (const set of this.waiting.values()) for (const listener of set) listener();
    if (this.waiting.size > 0 && !this.closed) void this.listen().catch(() => {}); // a listener's next subscribe retries too
  }
}
