/** Endpoints proven fast that a process remembers, the least recently answered forgotten first (one forgotten only loses its burst). */
const REMEMBERED_ENDPOINTS = 10_000;

/** Which of a process's fast-lane slots a delivery holds. */
export type FastSlot = 'share' | 'burst';

/**
 * The fast lane's slots of one process (docs/webhooks.md, "Fairness"). `slots` are shared among merchants: a
 * merchant may hold at most `share` of them at once (two fifths), so one merchant whose receivers hang cannot
 * take the slots other merchants' deliveries need. Beside them, as many **burst** slots, first come first served,
 * for deliveries to endpoints that answer fast: whose latest attempt in this process succeeded within `fastMs`
 * (a tenth of the timeout) and none of whose attempts is in flight for longer. A merchant paid often with many
 * fast endpoints spills nothing while it bursts; a fresh endpoint, or one that starts to hang, holds no burst
 * slot beyond the first `fastMs`, and the shared slots follow the rule above whatever the burst slots hold.
 * Everything else beyond a merchant's share goes to the slow lane (slow-lane.tasks.ts). Counted per process:
 * every worker process enforces the same rule on its own slots, so it holds for a fleet as a whole.
 */
export class FastLaneShares {
  /** Shared slots held, per merchant and in all. */
  private readonly held = new Map<string, number>();
  private sharedHeld = 0;
  private burstHeld = 0;
  readonly share: number;
  readonly burst: number;
  private readonly provenFast = new Set<string>();
  /** Start times of each endpoint's attempts in flight, oldest first. */
  private readonly sending = new Map<string, number[]>();

  constructor(readonly slots: number, private readonly fastMs: number) {
    this.share = Math.max(1, Math.floor((slots * 2) / 5));
    this.burst = slots;
  }

  /** Shared and burst slots: how many attempts a dispatcher may have in flight. */
  get capacity(): number {
    return this.slots + this.burst;
  }

  take(merchantId: string, endpointId: string, now = Date.now()): FastSlot | null {
    const n = this.held.get(merchantId) ?? 0;
    if (n < this.share && this.sharedHeld < this.slots) {
      this.held.set(merchantId, n + 1);
      this.sharedHeld++;
      return 'share';
    }
    if (this.burstHeld < this.burst && this.answersFast(endpointId, now)) {
      this.burstHeld++;
      return 'burst';
    }
    return null;
  }

  release(merchantId: string, slot: FastSlot): void {
    if (slot === 'burst') {
      this.burstHeld--;
      return;
    }
    this.sharedHeld--;
    const n = (this.held.get(merchantId) ?? 1) - 1;
    if (n <= 0) this.held.delete(merchantId);
    else this.held.set(merchantId, n);
  }

  /** An attempt to `endpointId` begins now; `answered` says when it ends, how (undefined: not sent) and in how long. */
  started(endpointId: string, at = Date.now()): (answer: { success: boolean; durationMs: number } | undefined) => void {
    const starts = this.sending.get(endpointId) ?? [];
    starts.push(at);
    this.sending.set(endpointId, starts);
    return (answer) => {
      starts.splice(starts.indexOf(at), 1);
      if (starts.length === 0) this.sending.delete(endpointId);
      if (!answer) return;
      this.provenFast.delete(endpointId);
      if (!answer.success || answer.durationMs >= this.fastMs) return;
      this.provenFast.add(endpointId);
      if (this.provenFast.size > REMEMBERED_ENDPOINTS) this.provenFast.delete(this.provenFast.values().next().value!);
    };
  }

  private answersFast(endpointId: string, now: number): boolean {
    const oldest = this.sending.get(endpointId)?.[0];
    return this.provenFast.has(endpointId) && (oldest === undefined || now - oldest < this.fastMs);
  }
}
