/**
 * The fast lane's slots of one process, shared among merchants: a merchant may hold at most `share` of
 * them at once (two fifths), so one merchant whose receivers hang cannot take the slots other
 * merchants' deliveries need. Its excess goes to the slow lane (webhook.tasks.ts) instead of waiting
 * here. Counted per process: every worker process enforces the same share of its own slots, so the
 * rule holds for a fleet as a whole (docs/webhooks.md, "Fairness").
 */
export class FastLaneShares {
  private readonly inFlight = new Map<string, number>();
  readonly share: number;

  constructor(slots: number) {
    this.share = Math.max(1, Math.floor((slots * 2) / 5));
  }

  take(merchantId: string): boolean {
    const n = this.inFlight.get(merchantId) ?? 0;
    if (n >= this.share) return false;
    this.inFlight.set(merchantId, n + 1);
    return true;
  }

  release(merchantId: string): void {
    const n = (this.inFlight.get(merchantId) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(merchantId);
    else this.inFlight.set(merchantId, n);
  }
}
