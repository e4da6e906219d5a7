import type pg from 'pg';
import { notifyChannel } from './db.js';

/** Answers whether this process takes the work it was woken for (it has room for it now). */
type Taker = () => boolean;

/**
 * A wake-up for work that waits in the database as rows due now (webhook deliveries), rung after the commit
 * that made them due (`afterCommit`). A taker in this process with room hears it at once, with no round
 * trip; when none has room (or the process runs none: an API-only process), other processes hear it by one
 * NOTIFY on `channel`, sent on its own outside every transaction — never inside a money transaction, whose
 * commits a NOTIFY would serialise — with at most one in flight and one more queued behind it however
 * often it rings. The rows are the truth: a lost wake-up only delays the work until the taker's next poll.
 */
export class Wakeup {
  private readonly takers = new Set<Taker>();
  private notifying = false;
  private notifyAgain = false;

  constructor(readonly channel: string) {
    // The channel is written into LISTEN statements (ListenFeed): a plain lower-case name only.
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid wake-up channel: ${channel}`);
  }

  /** A taker of this process; the returned function removes it. */
  take(taker: Taker): () => void {
    this.takers.add(taker);
    return () => this.takers.delete(taker);
  }

  ring(pool: pg.Pool): void {
    for (const taker of this.takers) if (taker()) return;
    this.notify(pool);
  }

  private notify(pool: pg.Pool): void {
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = true;
    notifyChannel(pool, this.channel).catch(() => {}).finally(() => {
      this.notifying = false;
      if (this.notifyAgain) {
        this.notifyAgain = false;
        this.notify(pool);
      }
    });
  }
}
