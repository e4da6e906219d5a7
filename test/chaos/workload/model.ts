import type { MerchantSpec } from './plan.js';

/**
 * What the API said happened, kept independently of the service's ledger: from these records alone
 * the model derives what every merchant's available, pending and blocked balances must be.
 */
export interface MMerchant extends MerchantSpec {
  index: number;
  id: string;
  key: string;
}

export interface MRefund {
  id: string;
  /** COMPLETED is the simulator's own outcome; an operator's answered control fixes it; UNKNOWN after a lost answer. */
  expect: 'COMPLETED' | 'FAILED' | 'UNKNOWN';
  /** Its final state has been seen (no longer PENDING). */
  known?: boolean;
}

export interface MCharge {
  id: string;
  merchant: MMerchant;
  amount: number;
  fee: number;
  net: number;
  splits: { recipient: MMerchant; amount: number }[];
  expiresAt: number;
  txid: string;
  status: 'PENDING' | 'PAID' | 'REFUNDED' | 'DISPUTED';
  e2e: string | null;
  /** The merchant's refund that is PENDING or COMPLETED (at most one); its debits stand. */
  liveRefund: MRefund | null;
  failedRefunds: MRefund[];
  /** The open dispute, or the accepted one (then the charge is REFUNDED). */
  dispute: { id: string; blocked: number; status: 'OPEN' | 'ACCEPTED' } | null;
  rejectedDisputes: string[];
}

export interface MWithdrawal {
  id: string;
  merchant: MMerchant;
  amount: number;
  fee: number;
  failKey: boolean;
  /** Known final state (an answered control, or read back); null while in flight. */
  final: 'COMPLETED' | 'FAILED' | null;
  expect: 'COMPLETED' | 'FAILED' | 'EITHER';
}

export interface Balance {
  available: number;
  pending: number;
  blocked: number;
}

const floorDiv = (n: number, d: number) => (n - (n % d)) / d;

export class Model {
  merchants: MMerchant[] = [];
  charges: MCharge[] = [];
  withdrawals: MWithdrawal[] = [];
  /** Answers that replayed an idempotent request: the id each key produced. */
  idemIds = new Map<string, string>();

  fee(m: MMerchant, amount: number): number {
    return m.chargeFeeFixed + floorDiv(amount * m.chargeFeeBps, 10_000);
  }

  share(amount: number, s: { mode: 'PERCENT' | 'FIXED'; value: number }): number {
    return s.mode === 'PERCENT' ? floorDiv(amount * s.value, 100) : s.value;
  }

  splitTotal(c: MCharge): number {
    return c.splits.reduce((sum, s) => sum + s.amount, 0);
  }

  inFlight(m: MMerchant): MWithdrawal[] {
    return this.withdrawals.filter((w) => w.merchant === m && w.final === null);
  }

  /**
   * Balances implied by the records. In-flight withdrawals are counted as pending; `failInFlight`
   * instead returns them to available (what a failure would do): the two bound what a merchant can
   * have available while payouts settle in the background.
   */
  balances(opts: { failInFlight?: boolean } = {}): Map<MMerchant, Balance> {
    const out = new Map<MMerchant, Balance>(this.merchants.map((m) => [m, { available: 0, pending: 0, blocked: 0 }]));
    const of = (m: MMerchant) => out.get(m)!;
    for (const c of this.charges) {
      if (c.e2e === null) continue;
      of(c.merchant).available += c.net;
      for (const s of c.splits) of(s.recipient).available += s.amount;
      if (c.liveRefund) {
        of(c.merchant).available -= c.amount - this.splitTotal(c);
        for (const s of c.splits) of(s.recipient).available -= s.amount;
      }
      if (c.dispute) {
        of(c.merchant).available -= c.dispute.blocked;
        if (c.dispute.status === 'OPEN') of(c.merchant).blocked += c.dispute.blocked;
      }
    }
    for (const w of this.withdrawals) {
      const total = w.amount + w.fee;
      if (w.final === 'FAILED' || (w.final === null && opts.failInFlight)) continue;
      of(w.merchant).available -= total;
      if (w.final === null) of(w.merchant).pending += total;
    }
    return out;
  }

  /** Platform accounts implied by the records (all refunds and withdrawals final). */
  platform(refundStatus: Map<string, string>) {
    let clearing = 0;
    let feeRevenue = 0;
    let inTransit = 0;
    for (const c of this.charges) {
      if (c.e2e === null) continue;
      clearing -= c.amount;
      feeRevenue += c.fee;
      if (c.liveRefund) {
        if (refundStatus.get(c.liveRefund.id) === 'COMPLETED') clearing += c.amount;
        else inTransit += c.amount;
      }
      if (c.dispute?.status === 'ACCEPTED') clearing += c.dispute.blocked;
    }
    for (const w of this.withdrawals) {
      if (w.final !== 'COMPLETED') continue;
      clearing += w.amount;
      feeRevenue += w.fee;
    }
    return { clearing, feeRevenue, inTransit };
  }
}
