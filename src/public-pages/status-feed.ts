import type pg from 'pg';

type Listener = () => void;

/**
 * Tells the waiting payment pages of this process that their checkout's status changed
 * (docs/checkouts.md#live-status). One LISTEN connection per process, opened when the first page waits: the
 * database notifies `checkout_status` with the checkout id when its charge's status changes (a trigger, at
 * commit — whichever process paid it). A page costs nothing while it waits but its open connection.
 * If the LISTEN connection breaks, every waiting page is told to look again (a notification may have been
 * missed) and the next subscriber reconnects.
 */
export class StatusFeed {
  private readonly waiting = new Map<string, Set<Listener>>();
  private client: pg.PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  async subscribe(checkoutId: string, listener: Listener): Promise<() => void> {
    let set = this.waiting.get(checkoutId);
    if (!set) this.waiting.set(checkoutId, set = new Set());
    set.add(listener);
    const unsubscribe = () => {
      set!.delete(listener);
      if (set!.size === 0 && this.waiting.get(checkoutId) === set) this.waiting.delete(checkoutId);
    };
    try {
      await this.listen();
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }

  /** Pages waiting now (the benchmark reads it). */
  get size(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => {});
    this.client?.release(true);
    this.client = null;
  }

  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('status feed closed'));
    this.connecting ??= (async () => {
      const client = await this.pool.connect();
      client.on('notification', (msg) => this.notify(msg.payload ?? ''));
      client.on('error', () => this.drop(client));
      await client.query('LISTEN checkout_status');
      this.client = client;
    })().finally(() => { this.connecting = null; });
    return this.connecting;
  }

  private notify(checkoutId: string): void {
    for (const listener of this.waiting.get(checkoutId) ?? []) listener();
  }

  private drop(client: pg.PoolClient): void {
    if (this.client !== client) return;
    this.client = null;
    client.release(true);
    for (const set of this.waiting.values()) for (const listener of set) listener();
    if (this.waiting.size > 0 && !this.closed) void this.listen().catch(() => {}); // the pages' reconnects retry too
  }
}
