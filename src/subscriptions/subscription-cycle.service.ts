import { saoPauloDate, saoPauloDayEnd } from '../calendar/index.js';
import { chargeFee, checkTicket, netAmount } from '../charges/charge.rules.js';
import type { ChargeWithImage } from '../charges/charge.schemas.js';
import { writeCycleCharge } from '../charges/charge.service.js';
import { loadCharge, withImage } from '../charges/charge.view.js';
import { selectCustomerRecord } from '../customers/customer.sql.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { withTransaction, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { withClaim, type Claimable } from '../platform/http/idempotency-claim.js';
import { randomBase62 } from '../platform/ids.js';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import {
  cycleDueDate, cycleIssueDate, cycleOnDueDate, firstIssuableCycle, hasCycle, lastDebitDay,
} from './cycle.rules.js';
import type { CycleChargeCreate } from './subscription.schemas.js';
import { plannedIssueDay } from './subscription.rules.js';
import {
  abandonCycle, insertCycle, linkCycleCharge, lockCycle, lockSubscription, selectCycle, selectSubscription, selectUnissuedCycles, setNextCycle,
  type CycleRow, type SubscriptionRow,
} from './subscription.sql.js';
import { PROVIDER_CANCEL_TASK } from './subscription-state.service.js';

/*
 * Issuing cycles exactly once (docs/contract/subscriptions.md#issuing). A cycle is claimed in one transaction — its row
 * in subscription_cycles, whose primary key (subscription, cycle) admits one, with the txid the provider will know it
 * by — and the subscription's next cycle advanced with it. The provider is asked for the charge holding no
 * connection; the charge is written and linked in a second transaction, which first checks under the subscription's
 * lock that it is still ACTIVE (a cancelled one gets no charge: the claim is abandoned and the provider told). A
 * process that dies between the two leaves a claim without a charge; the sweep completes it with the same txid.
 */

/** A txid for a cycle's charge: API Pix's `[a-zA-Z0-9]{26,35}`, random, chosen at the claim. */
const newCycleTxid = () => randomBase62(32);

const claimOf = (sub: SubscriptionRow, n: number, amount: number) => ({
  subscription_id: sub.id, merchant_id: sub.merchant_id, cycle: n, due_date: cycleDueDate(sub.start_date, sub.frequency, n), amount,
  txid: newCycleTxid(),
});

/**
 * Claims the next cycle of a fixed-amount ACTIVE subscription that is due to be issued `today` — skipping those
 * whose last issue day (2 days before they are due) passed — and moves the plan on. `now`: the simulator's
 * "next cycle now" claims the next cycle whatever its date. Answers the cycle number, null when none is due.
 */
async function claimFixedCycle(rt: Runtime, subscriptionId: string, now: boolean): Promise<number | null> {
  return withTransaction(rt.pool, async (tx) => {
    const sub = await lockSubscription(tx, subscriptionId, null);
    if (!sub || sub.status !== 'ACTIVE' || sub.amount === null) return null;
    const today = saoPauloDate(new Date());
    const n = now ? (hasCycle(sub.start_date, sub.frequency, sub.end_date, sub.next_cycle) ? sub.next_cycle : null)
      : firstIssuableCycle(sub.start_date, sub.frequency, sub.end_date, sub.next_cycle, today);
    if (n === null) {
      if (sub.next_issue_on !== null) await setNextCycle(tx, sub.id, sub.next_cycle, null);
      return null;
    }
    const issueOn = cycleIssueDate(cycleDueDate(sub.start_date, sub.frequency, n), today);
    if (!now && issueOn! > today) {
      if (n !== sub.next_cycle || issueOn !== sub.next_issue_on) await setNextCycle(tx, sub.id, n, issueOn);
      return null;
    }
    await insertCycle(tx, claimOf(sub, n, sub.amount));
    await setNextCycle(tx, sub.id, n + 1, plannedIssueDay(sub.start_date, sub.frequency, sub.end_date, n + 1));
    return n;
  });
}

interface CompleteOptions {
  /** A merchant's request: an ended subscription is INVALID_STATE (the claim is left for the sweep to abandon). */
  refuseEnded?: boolean;
  hook?: TransactionHook<ChargeWithImage | null>;
}

/**
 * Has the provider issue a claimed cycle's charge and writes it: the charge, or null when the subscription ended
 * first (the claim is then abandoned). Safe to run again and beside another run: the provider is asked by the same
 * txid, and the charge is written once, under the cycle's lock.
 */
async function completeCycle(rt: Runtime, subscriptionId: string, n: number, opts: CompleteOptions = {}): Promise<ChargeWithImage | null> {
  const claim = await selectCycle(rt.pool, subscriptionId, n);
  if (!claim) throw new Error(`cycle ${n} of ${subscriptionId} was never claimed`);
  if (claim.abandoned) return null;
  if (claim.charge_id) return withImage((await loadCharge(rt.pool, claim.charge_id))!);
  const sub = (await selectSubscription(rt.pool, subscriptionId))!;
  const merchant = (await selectMerchant(rt.pool, sub.merchant_id))!;
  const customer = (await selectCustomerRecord(rt.pool, sub.merchant_id, sub.customer_id))!;
  if (sub.status === 'ACTIVE') {
    await rt.provider.issueCycleCharge({
      txid: claim.txid, providerRef: sub.provider_ref!, dueDate: claim.due_date, amount: claim.amount,
      description: cycleDescription(sub), payer: { name: customer.name!, taxId: customer.tax_id! },
    }).catch(() => { throw new AppError('PROVIDER_ERROR', 'The PIX provider could not issue the cycle\'s charge; it is issued later'); });
  }
  return withTransaction(rt.pool, async (tx) => {
    const locked = (await lockSubscription(tx, subscriptionId, null))!;
    const cycle = (await lockCycle(tx, subscriptionId, n))!;
    if (cycle.charge_id) return withImage((await loadCharge(tx, cycle.charge_id))!);
    if (cycle.abandoned) return null;
    if (locked.status !== 'ACTIVE') {
      if (opts.refuseEnded) throw new AppError('INVALID_STATE', `Subscription is ${locked.status}; its charge was not issued`);
      await abandonCycle(tx, subscriptionId, n);
      // The provider may hold the charge already: it goes with the recurrence's cancellation (every unpaid one, once more).
      if (locked.provider_ref) await enqueue(tx, PROVIDER_CANCEL_TASK, { subscriptionId }, { jobKey: `${PROVIDER_CANCEL_TASK}:${subscriptionId}` });
      return null;
    }
    const charge = await writeCycleCharge(tx, merchant, {
      amount: cycle.amount, txid: cycle.txid, description: cycleDescription(locked), customer, subscriptionId,
      dueDate: cycle.due_date, expiresAt: saoPauloDayEnd(lastDebitDay(cycle.due_date, locked.retry_policy)),
    });
    await linkCycleCharge(tx, subscriptionId, n, charge.id);
    return withImage(charge);
  }, opts.hook);
}

/** What a cycle's charge says to the payer: the subscription's description, else its contract. */
const cycleDescription = (sub: Pick<SubscriptionRow, 'description' | 'contract'>) => sub.description ?? sub.contract;

/**
 * The issue job of a fixed-amount subscription (and the sweep's recovery of any subscription): completes its claims
 * left without a charge for longer than a sweep period (their own process is then presumed dead), then claims and
 * issues every cycle due by today.
 */
export async function issueDueCycles(rt: Runtime, subscriptionId: string): Promise<void> {
  for (const left of await selectUnissuedCycles(rt.pool, rt.config.subscriptionSweepEveryMs, subscriptionId)) await completeCycle(rt, subscriptionId, left);
  for (;;) {
    const n = await claimFixedCycle(rt, subscriptionId, false);
    if (n === null) return;
    await completeCycle(rt, subscriptionId, n);
  }
}

/** The simulator's "next cycle now": the next cycle of a fixed-amount ACTIVE subscription, claimed and issued at once. */
export async function issueNextCycleNow(rt: Runtime, subscriptionId: string): Promise<ChargeWithImage> {
  const sub = await selectSubscription(rt.pool, subscriptionId);
  if (!sub) throw notFound('Subscription');
  if (sub.status !== 'ACTIVE') throw new AppError('INVALID_STATE', `Subscription is ${sub.status}; only an ACTIVE subscription has a next cycle`);
  if (sub.amount === null) throw new AppError('INVALID_STATE', 'Subscription has a variable amount: the merchant issues its cycles');
  const n = await claimFixedCycle(rt, subscriptionId, true);
  if (n === null) throw new AppError('INVALID_STATE', 'Subscription has no cycle left');
  const charge = await completeCycle(rt, subscriptionId, n, { refuseEnded: true });
  return charge!;
}

/**
 * POST /subscriptions/{id}/charges (docs/contract/subscriptions.md#variable-amount): the merchant asks for a variable-amount
 * cycle's charge. One per cycle: a due date claimed before is CONFLICT, unless the earlier request was cut short
 * before its charge was written — then, for the same amount, this one completes it.
 */
export async function createVariableCycleCharge(
  rt: Runtime, merchant: MerchantRow, subscriptionId: string, input: CycleChargeCreate, idempotency?: Claimable,
): Promise<ChargeWithImage> {
  return withClaim(rt.pool, idempotency, async (hook?: TransactionHook<ChargeWithImage>) => {
    const claim = await withTransaction(rt.pool, async (tx): Promise<CycleRow> => {
      const sub = await lockSubscription(tx, subscriptionId, merchant.id);
      if (!sub) throw notFound('Subscription');
      if (sub.status !== 'ACTIVE') throw new AppError('INVALID_STATE', `Subscription is ${sub.status}; only an ACTIVE subscription is charged`);
      if (sub.min_amount === null) throw new AppError('INVALID_STATE', 'Subscription has a fixed amount: Pixgate issues its cycles');
      if (input.amount < sub.min_amount) throw validationError('amount', `must be >= minAmount (${sub.min_amount})`);
      checkTicket(merchant, input.amount);
      // Before the claim: a charge refused when written would leave its cycle claimed for good (the fee may have been
      // raised since minAmount was checked against it).
      netAmount(input.amount, chargeFee(merchant, input.amount), []);
      const n = cycleOnDueDate(sub.start_date, sub.frequency, sub.end_date, input.dueDate);
      if (n === null) throw validationError('dueDate', 'is not the due date of a cycle of the subscription');
      if (cycleIssueDate(input.dueDate, saoPauloDate(new Date())) === null) throw validationError('dueDate', 'must be at least 2 days after today');
      const claimed = await insertCycle(tx, claimOf(sub, n, input.amount));
      if (claimed) {
        if (n >= sub.next_cycle) await setNextCycle(tx, sub.id, n + 1, null);
        return claimed;
      }
      const earlier = (await lockCycle(tx, subscriptionId, n))!;
      if (earlier.charge_id || earlier.abandoned || earlier.amount !== input.amount) {
        throw new AppError('CONFLICT', `Subscription already has a charge due ${input.dueDate}`);
      }
      return earlier;
    });
    return (await completeCycle(rt, subscriptionId, claim.cycle, { refuseEnded: true, hook: hook as TransactionHook<ChargeWithImage | null> | undefined }))!;
  });
}

