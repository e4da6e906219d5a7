import { DELIVERIES_DUE } from '../events/event-fanout.sql.js';
import { ListenFeed } from '../platform/listen-feed.js';
import type { Runtime } from '../runtime.js';
import { claimDispatch, moveToSlowLane, type AttemptRecord, type DeliveryTarget } from './delivery.sql.js';
import { FastLaneShares, type FastSlot } from './fairness.rules.js';
import { recordSent, sendAttempt } from './webhook-attempt.service.js';
import { deliveriesInFlight } from './webhook.metrics.js';

/** With nothing to wake it, a dispatcher looks for due attempts this often: other processes' retries, a dead worker's leases. */
const DISPATCH_POLL_MS = 1_000;
/** A record or a hand-over that failed (the database away) is tried again after this long. */
const RETRY_WRITE_MS = 500;

export interface DispatcherOptions {
  slots: number;
  pollMs?: number;
}

/**
 * The fast lane of one worker process: webhook attempts are rows (their pairs, due), not jobs. The dispatcher
 * claims as many due attempts as it has free slots, in one statement (oldest first, each leased for the
 * timeout + 30 s, so a worker that dies mid-attempt leaves them due again), sends each on its own, and records
 * whatever has finished in one statement while the next are in flight. A merchant holds at most its share of
 * the shared slots, and burst slots only for endpoints that answer fast (fairness.rules.ts); its excess, and
 * attempts to an endpoint flagged slow, go unsent to the slow lane (slow-lane.tasks.ts). It wakes when deliveries are made due: in this process after their commit, from
 * other processes by NOTIFY (platform/wakeup.ts), for a retry it recorded at its time, and every `pollMs`.
 * Claims and records commit unflushed: losing one only sends an attempt again (at least once).
 */
export class Dispatcher {
  private readonly shares: FastLaneShares;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private inFlight = 0;
  private claiming = false;
  private claimAgain = false;
  /** The last claim filled every free slot: more may be due, so a finished attempt looks again. */
  private backlog = false;
  /** A wake-up came while every slot was busy: the next finished attempt looks (unless another process took them). */
  private missed = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private readonly toRecord: AttemptRecord[] = [];
  private recording: Promise<void> | null = null;
  private readonly work = new Set<Promise<unknown>>();
  private readonly cleanups: Array<() => unknown> = [];
  /** The sends of each (endpoint, state change) in flight: the next event of that change waits for `tail`. */
  private readonly sendsInOrder = new Map<string, { tail: Promise<void> }>();

  constructor(private readonly rt: Runtime, o: DispatcherOptions) {
    this.pollMs = o.pollMs ?? DISPATCH_POLL_MS;
    this.leaseMs = rt.config.webhookTimeoutMs + 30_000;
    this.shares = new FastLaneShares(o.slots, rt.config.webhookTimeoutMs / 10);
  }

  async start(): Promise<void> {
    this.cleanups.push(DELIVERIES_DUE.take(() => this.wake()));
    const feed = new ListenFeed(this.rt.pool, DELIVERIES_DUE.channel);
    this.cleanups.push(() => feed.close());
    // Without the feed (the database away at start) the poll still finds everything; the feed retries on its next subscribe.
    await feed.subscribe('', () => void this.wake()).then((unsubscribe) => this.cleanups.push(unsubscribe), () => {});
    this.claim();
  }

  /** Lets the attempts in flight finish and be recorded; takes no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
    while (this.work.size > 0 || this.recording) {
      await Promise.allSettled([...this.work]);
      await this.recording;
    }
  }

  /** Whether this process takes newly due attempts now (a free slot); if not, another process is asked. */
  wake(): boolean {
    if (this.stopped) return false;
    if (this.inFlight >= this.shares.capacity) {
      this.missed = true;
      return false;
    }
    this.claim();
    return true;
  }

  private claim(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    this.track(this.claimLoop());
  }

  private async claimLoop(): Promise<void> {
    let wait = this.pollMs;
    try {
      while (!this.stopped) {
        this.claimAgain = false;
        const room = this.shares.capacity - this.inFlight;
        if (room <= 0) break;
        const batch = await claimDispatch(this.rt.pool, room, this.leaseMs);
        this.backlog = batch.length === room;
        this.dispatch(batch);
        if (!this.backlog && !this.claimAgain) break;
      }
    } catch {
      wait = RETRY_WRITE_MS; // the database is away: the poll comes back sooner
    } finally {
      this.claiming = false;
    }
    this.wakeAt(Date.now() + wait);
  }

  private dispatch(batch: DeliveryTarget[]): void {
    const toSlowLane: DeliveryTarget[] = [];
    for (const target of batch) {
      // Events one state change recorded reach an endpoint in their order, each after the one before it was answered:
      // CHECKOUT_PAID after its CHARGE_PAID (docs/contract/checkouts.md#checkout-events); the claim lists them in that
      // order. A chain is sent on its first event's slot (shared or burst), held until its last send is answered.
      const change = `${target.endpoint_id} ${target.event_created_at.getTime()}`;
      const chain = this.sendsInOrder.get(change);
      const slot = chain || target.slow ? null : this.shares.take(target.merchant_id, target.endpoint_id);
      if (!chain && !slot) {
        toSlowLane.push(target);
        continue;
      }
      this.inFlight++;
      deliveriesInFlight.inc();
      const sent = chain ? chain.tail.then(() => this.send(target)) : this.send(target);
      const link = { tail: sent.then(() => undefined, () => undefined) };
      if (chain) chain.tail = link.tail;
      else this.track(this.endOfChain(change, link, target.merchant_id, slot!));
      this.track(sent.then((record) => {
        if (record) this.record(record);
      }).catch(() => {
        // Never expected (sendAttempt classifies every failure); the lease makes the attempt due again.
      }).finally(() => {
        this.inFlight--;
        deliveriesInFlight.dec();
        if (this.backlog || this.missed) {
          this.missed = false;
          this.claim();
        }
      }));
    }
    if (toSlowLane.length) this.track(this.retrying(() => moveToSlowLane(this.rt.pool, toSlowLane)));
  }

  /** One attempt, its endpoint's answer counted for its burst (fairness.rules.ts). */
  private async send(target: DeliveryTarget): Promise<AttemptRecord | undefined> {
    const answered = this.shares.started(target.endpoint_id);
    let record: AttemptRecord | undefined;
    try {
      record = await sendAttempt(this.rt, target);
      return record;
    } finally {
      answered(record);
    }
  }

  /** Frees a chain's slot once its last send (a follower may join while one is in flight) is answered. */
  private async endOfChain(change: string, chain: { tail: Promise<void> }, merchantId: string, slot: FastSlot): Promise<void> {
    this.sendsInOrder.set(change, chain);
    for (let seen = chain.tail; ; seen = chain.tail) {
      await seen;
      if (seen === chain.tail) break;
    }
    this.sendsInOrder.delete(change);
    this.shares.release(merchantId, slot);
  }

  private record(record: AttemptRecord): void {
    this.toRecord.push(record);
    // A retry this process scheduled in the fast lane: this dispatcher looks for it when it is due.
    if (record.next === 'RETRY' && !record.slow && record.retryAt) this.wakeAt(record.retryAt.getTime());
    this.flush();
  }

  private flush(): void {
    if (this.recording) return;
    this.recording = this.recordAll().finally(() => {
      this.recording = null;
      // Finished while the last statement's promise was settling: recorded by the next one.
      if (this.toRecord.length > 0) this.flush();
    });
  }

  /** Everything finished meanwhile goes in one statement; what finishes during it, in the next. */
  private async recordAll(): Promise<void> {
    while (this.toRecord.length > 0) {
      const batch = this.toRecord.splice(0);
      await this.retrying(() => recordSent(this.rt, batch));
    }
  }

  /**
   * A write that fails (the database away, a deadlock with another worker's record) is tried again until it
   * succeeds or the lease it serves has run out (its attempts are then due again anyway).
   */
  private async retrying(write: () => Promise<unknown>): Promise<void> {
    const until = Date.now() + this.leaseMs;
    for (;;) {
      try {
        await write();
        return;
      } catch {
        if (Date.now() > until) return;
        await new Promise((r) => setTimeout(r, RETRY_WRITE_MS));
      }
    }
  }

  private wakeAt(at: number): void {
    if (this.stopped || at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.claim();
    }, Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private track(p: Promise<unknown>): void {
    this.work.add(p);
    void p.finally(() => this.work.delete(p));
  }
}

/** Starts a dispatcher on `rt` (src/composition.ts runs one per worker process). */
export async function startDispatcher(rt: Runtime, o: DispatcherOptions): Promise<Dispatcher> {
  const d = new Dispatcher(rt, o);
  await d.start();
  return d;
}
