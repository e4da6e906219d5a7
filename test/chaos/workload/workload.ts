import { randomUUID } from 'node:crypto';
import { check, show } from './check.js';
import type { Client } from './client.js';
import { Model, type MCharge, type MMerchant, type MWithdrawal } from './model.js';
import { chargeOps } from './ops-charges.js';
import { disputeOps } from './ops-disputes.js';
import { merchantOps } from './ops-merchants.js';
import { refundOps } from './ops-refunds.js';
import { withdrawalOps } from './ops-withdrawals.js';
import type { OpKind, OpSpec, Plan } from './plan.js';

export type Effective = MCharge['status'] | 'EXPIRED' | 'EDGE';

/** One operation ready to run: what it targets, whose balances it moves, and how it runs. */
export interface Resolved {
  label: string;
  kind: OpKind;
  touches: MMerchant[];
  /** strong: no other operation of the batch moves these balances, so exact outcomes can be required. */
  run(strong: boolean): Promise<void>;
}

/** What operations share: the model, the client, balance bounds taken at the batch start, helpers. */
export interface Ctx {
  model: Model;
  client: Client;
  key(): string;
  lower(m: MMerchant): number;
  upper(m: MMerchant): number;
  eff(c: MCharge): Effective;
  checkCharge(c: MCharge): Promise<any>;
  getWithdrawal(w: MWithdrawal): Promise<any>;
  outcome(kind: OpKind, what: string): void;
}

export type OpResolver = (ctx: Ctx, op: OpSpec, claim: Claims) => Resolved | null;

/**
 * Targets taken in the current batch: one operation per charge, one withdrawal or contract operation
 * per merchant, and no charge created by a merchant whose contract changes in the same batch.
 */
export interface Claims {
  charges: Set<MCharge>;
  merchants: Set<MMerchant>;
  withdrawals: Set<MWithdrawal>;
  creating: Set<MMerchant>;
}

/** Prefers the primary candidates (6 times in 7), else a fallback (an operation that must be refused). */
export function choose<T>(pick: number, primary: T[], fallback: T[], free: (x: T) => boolean): { target: T; primary: boolean } | null {
  const lists: Array<[T[], boolean]> = pick % 7 === 0 ? [[fallback, false], [primary, true]] : [[primary, true], [fallback, false]];
  for (const [list, isPrimary] of lists) {
    for (let i = 0; i < list.length; i++) {
      const x = list[(pick + i) % list.length]!;
      if (free(x)) return { target: x, primary: isPrimary };
    }
  }
  return null;
}

export class Workload implements Ctx {
  readonly model = new Model();
  readonly outcomes = new Map<string, number>();
  readonly recent: string[] = [];
  private bounds = { lower: new Map<MMerchant, number>(), upper: new Map<MMerchant, number>() };
  private readonly resolvers: Partial<Record<OpKind, OpResolver>> = { ...chargeOps, ...refundOps, ...disputeOps, ...withdrawalOps, ...merchantOps };

  constructor(readonly client: Client) {}

  key = () => `chaos-${randomUUID()}`;
  lower = (m: MMerchant) => this.bounds.lower.get(m) ?? 0;
  upper = (m: MMerchant) => this.bounds.upper.get(m) ?? 0;

  outcome(kind: OpKind, what: string): void {
    const k = `${kind}: ${what}`;
    this.outcomes.set(k, (this.outcomes.get(k) ?? 0) + 1);
  }

  /** PENDING or EXPIRED by the clock; EDGE within a few seconds of expiresAt, where either is right. */
  eff(c: MCharge): Effective {
    if (c.status !== 'PENDING') return c.status;
    const now = Date.now();
    if (now >= c.expiresAt + 2000) return 'EXPIRED';
    return now >= c.expiresAt - 5000 ? 'EDGE' : 'PENDING';
  }

  async setup(plan: Plan): Promise<void> {
    for (const [index, spec] of plan.merchants.entries()) {
      const created = await this.client.admin('POST', '/admin/merchants', {
        userName: `chaos merchant ${index}`, email: `chaos${index}@example.com`,
        kyc: { status: 'APPROVED', tradeName: `Loja ${index}` },
        pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
        ...spec,
      });
      check(created.status === 201, 'merchant create', created.status, created.body);
      const key = await this.client.admin('POST', `/admin/merchants/${created.body.data.id}/api-keys`);
      check(key.status === 201, 'api key create', key.status, key.body);
      this.model.merchants.push({ ...spec, index, id: created.body.data.id, key: key.body.data.key });
    }
  }

  async checkCharge(c: MCharge): Promise<any> {
    const r = await this.client.merchant(c.merchant.key, 'GET', `/transparents/check?id=${c.id}`);
    check(r.status === 200, `check ${c.id}`, r.status, r.body);
    return r.body.data;
  }

  async getWithdrawal(w: MWithdrawal): Promise<any> {
    const r = await this.client.merchant(w.merchant.key, 'GET', `/withdrawals/${w.id}`);
    check(r.status === 200, `get withdrawal ${w.id}`, r.status, r.body);
    return r.body.data;
  }

  /** Runs one batch: its operations at once, then reads back what they touched and what settled meanwhile. */
  async runBatch(ops: OpSpec[], label: string): Promise<void> {
    this.bounds = {
      lower: new Map([...this.model.balances()].map(([m, b]) => [m, b.available])),
      upper: new Map([...this.model.balances({ failInFlight: true })].map(([m, b]) => [m, b.available])),
    };
    const claims: Claims = { charges: new Set(), merchants: new Set(), withdrawals: new Set(), creating: new Set() };
    const resolved = ops.flatMap((op) => this.resolvers[op.kind]?.(this, op, claims) ?? []);
    this.recent.push(`${label}: ${resolved.map((r) => r.label).join(', ')}`);
    if (this.recent.length > 6) this.recent.shift();
    const touchCount = new Map<MMerchant, number>();
    for (const r of resolved) for (const m of new Set(r.touches)) touchCount.set(m, (touchCount.get(m) ?? 0) + 1);
    const results = await Promise.allSettled(resolved.map((r) => r.run(r.touches.every((m) => touchCount.get(m) === 1))));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await this.refresh([...claims.charges]);
  }

  /** Withdrawals that settled in the background, and the touched charges as the API shows them now. */
  async refresh(touched: MCharge[]): Promise<void> {
    await Promise.all(this.model.withdrawals.filter((w) => w.final === null).map(async (w) => {
      const data = await this.getWithdrawal(w);
      if (data.status !== 'COMPLETED' && data.status !== 'FAILED') return;
      check(w.expect === 'EITHER' || data.status === w.expect, `withdrawal ${w.id} settled ${data.status}, expected ${w.expect}`, data);
      w.final = data.status;
    }));
    await Promise.all(touched.map(async (c) => compareCharge(this, c, await this.checkCharge(c))));
  }

  /** Waits until every withdrawal and every refund has reached a final state. */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.refresh([]);
      const openRefunds: MCharge[] = [];
      await Promise.all(this.model.charges.filter((c) => c.liveRefund && !c.liveRefund.known).map(async (c) => {
        const data = await this.checkCharge(c);
        if (data.refund?.status === 'PENDING') openRefunds.push(c);
        else compareCharge(this, c, data);
      }));
      const openWithdrawals = this.model.withdrawals.filter((w) => w.final === null);
      if (!openRefunds.length && !openWithdrawals.length) return;
      check(Date.now() < deadline, `not final after ${timeoutMs} ms`,
        `withdrawals: ${openWithdrawals.map((w) => w.id).join(' ')}`, `refunds: ${openRefunds.map((c) => c.liveRefund!.id).join(' ')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** The charge as check shows it must be the model's charge. */
export function compareCharge(ctx: Ctx, c: MCharge, data: any): void {
  const eff = ctx.eff(c);
  const ctxt = [`model: ${show({ status: c.status, e2e: c.e2e, liveRefund: c.liveRefund, dispute: c.dispute, failed: c.failedRefunds })}`, data];
  if (eff !== 'EDGE') check(data.status === eff, `charge ${c.id} is ${data.status}, model says ${eff}`, ...ctxt);
  check(data.end2endId === c.e2e, `charge ${c.id} end2endId`, ...ctxt);
  if (c.e2e !== null) check(data.fee === c.fee && data.netAmount === c.net, `charge ${c.id} fee/netAmount`, ...ctxt);
  const r = data.refund;
  if (c.liveRefund) {
    check(r?.id === c.liveRefund.id && r.reason === 'MERCHANT' && r.status !== 'FAILED', `charge ${c.id} live refund`, ...ctxt);
    if (r.status === 'COMPLETED') c.liveRefund.known = true;
    else check(!c.liveRefund.known, `charge ${c.id}: refund settled, then PENDING again`, ...ctxt);
  } else if (c.dispute?.status === 'ACCEPTED') {
    check(r?.reason === 'DISPUTE' && r.status === 'COMPLETED' && r.amount === c.dispute.blocked, `charge ${c.id} dispute refund`, ...ctxt);
  } else if (c.failedRefunds.length) {
    check(r?.id === c.failedRefunds.at(-1)!.id && r.status === 'FAILED', `charge ${c.id} failed refund`, ...ctxt);
  } else {
    check(r === undefined, `charge ${c.id} has a refund the model does not know`, ...ctxt);
  }
}
