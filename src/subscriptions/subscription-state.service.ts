import { saoPauloDate } from '../calendar/index.js';
import type { ChargeStatus } from '../charges/charge.schemas.js';
import { markExpired } from '../charges/charge-expiry.service.js';
import { lockCharge } from '../charges/charge.sql.js';
import { emitEvents, type NewEvent } from '../events/event.sql.js';
import { withTransaction, type Executor, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { cycleDueDate, cycleIssueDate, lastCycle } from './cycle.rules.js';
import type { EndedBy, Subscription, SubscriptionStatus } from './subscription.schemas.js';
import { plannedIssueDay } from './subscription.rules.js';
import {
  lockSubscription, markAuthorized, markEnded, selectCycle, selectCycles, setCycleFailed, type SubscriptionRow,
} from './subscription.sql.js';
import { loadSubscription } from './subscription.view.js';

// The subscription's states (docs/contract/subscriptions.md#states): every change of status goes through here,
// under the subscription's row lock, with its event in the same transaction.

/** Issues the due cycles of one subscription (subscription-cycle.service.ts); keyed per subscription. */
export const ISSUE_TASK = 'subscriptions.issue';
export const issueJob = (db: Executor, subscriptionId: string) =>
  enqueue(db, ISSUE_TASK, { subscriptionId }, { jobKey: `${ISSUE_TASK}:${subscriptionId}` });
/** Tells the provider a recurrence ended (its unpaid cycle charges with it), after the commit that ended it. */
export const PROVIDER_CANCEL_TASK = 'subscriptions.provider-cancel';
/** A CREATED subscription not authorized by its deadline. */
export const EXPIRE_TASK = 'subscriptions.expire';

/** Why a cycle's charge failed when its subscription was cancelled (docs/contract/subscriptions.md#cycle-charges). */
const CANCELLED_REASON = 'SUBSCRIPTION_CANCELLED';

const EVENT_OF: Partial<Record<SubscriptionStatus, NewEvent['type']>> = {
  ACTIVE: 'SUBSCRIPTION_AUTHORIZED', REJECTED: 'SUBSCRIPTION_REJECTED', CANCELLED: 'SUBSCRIPTION_CANCELLED', EXPIRED: 'SUBSCRIPTION_EXPIRED',
};

/**
 * The subscription as GET shows it, after a change in this transaction, and its event if the new status has one —
 * recorded after `caused` (the events of the same change) in one call, so that their ids grow in that order
 * (docs/contract/webhooks.md#events-api: among events of one state change, the later one lists first).
 */
async function announce(tx: Tx, id: string, caused: NewEvent[] = []): Promise<Subscription> {
  const found = (await loadSubscription(tx, id, null, { withCode: false }))!;
  const type = EVENT_OF[found.subscription.status];
  const events = type ? [...caused, { merchantId: found.merchantId, type, data: found.subscription }] : caused;
  if (events.length > 0) await emitEvents(tx, events);
  return found.subscription;
}

/** Locks a subscription the provider or the simulator names (any merchant's), or NOT_FOUND. */
export async function lockForProvider(tx: Tx, id: string): Promise<SubscriptionRow> {
  const sub = await lockSubscription(tx, id, null);
  if (!sub) throw notFound('Subscription');
  return sub;
}

const wrongState = (sub: SubscriptionRow, allowed: string) =>
  new AppError('INVALID_STATE', `Subscription is ${sub.status}; only ${allowed} subscription can be changed this way`);

/**
 * CREATED → ACTIVE: the payer authorized (journey 3: paid the first charge). A fixed-amount subscription's
 * cycles are issued from then on: its issue job runs at once and the sweep follows the plan.
 */
export async function activate(tx: Tx, sub: SubscriptionRow): Promise<Subscription> {
  const fixed = sub.amount !== null;
  await markAuthorized(tx, sub.id, fixed ? plannedIssueDay(sub.start_date, sub.frequency, sub.end_date, sub.next_cycle) : null);
  if (fixed) await issueJob(tx, sub.id);
  return announce(tx, sub.id);
}

/** The payer's bank reports an authorization (journeys 1 and 2; journey 3 activates with its first payment). */
export function authorizeSubscription(rt: Runtime, id: string): Promise<Subscription> {
  return withTransaction(rt.pool, async (tx) => {
    const sub = await lockForProvider(tx, id);
    assertAwaitingAuthorization(sub);
    return activate(tx, sub);
  });
}

/** A CREATED subscription, still within its wait for an authorization (the expiry job may not have run yet). */
export function assertAwaitingAuthorization(sub: SubscriptionRow): void {
  if (sub.status === 'CREATED' && sub.expires_at <= new Date()) throw new AppError('INVALID_STATE', 'Subscription is EXPIRED');
  if (sub.status !== 'CREATED') throw wrongState(sub, 'a CREATED');
}

/**
 * Ends a subscription: the status, endedAt and endedBy, its event, and — when cancelled — its cycles not yet paid
 * (their charges EXPIRED with CANCELLED_REASON, CHARGE_EXPIRED each) and the provider told after the commit.
 * Journey 3 ended while CREATED (rejected, cancelled) takes its unpaid first charge with it: paying that charge means
 * accepting the recurrence, so it cannot stay payable once the recurrence is refused (docs/contract/subscriptions.md#states).
 */
async function endSubscription(tx: Tx, sub: SubscriptionRow, status: SubscriptionStatus, endedBy: EndedBy | null): Promise<Subscription> {
  await markEnded(tx, sub.id, status, endedBy);
  const expired: NewEvent[] = [];
  if (sub.status === 'CREATED' && sub.first_charge_id) {
    const first = await lockCharge(tx, 'id', sub.first_charge_id);
    if (first?.effective_status === 'PENDING') expired.push(await markExpired(tx, first.merchant_id, first.id));
  }
  if (status === 'CANCELLED') {
    for (const cycle of await selectCycles(tx, sub.id)) {
      if (!cycle.charge_id) continue; // a claim not yet written: never written now (subscription-cycle.service.ts)
      const charge = await lockCharge(tx, 'id', cycle.charge_id);
      if (charge?.effective_status !== 'PENDING') continue;
      expired.push(await expireCycleCharge(tx, charge.merchant_id, charge.id, CANCELLED_REASON));
    }
    if (sub.provider_ref) await enqueue(tx, PROVIDER_CANCEL_TASK, { subscriptionId: sub.id }, { jobKey: `${PROVIDER_CANCEL_TASK}:${sub.id}` });
  }
  // Its cycles' CHARGE_EXPIRED, then the subscription's own event (docs/contract/subscriptions.md#subscription-events).
  return announce(tx, sub.id, expired);
}

/**
 * A cycle's charge fails for good: EXPIRED with its reason (the charge was locked by the caller). Answers its
 * CHARGE_EXPIRED for the caller to record with the other events of the change, in their order.
 */
export async function expireCycleCharge(tx: Tx, merchantId: string, chargeId: string, reason: string): Promise<NewEvent> {
  await setCycleFailed(tx, chargeId, reason);
  return markExpired(tx, merchantId, chargeId);
}

/** POST /subscriptions/{id}/cancel: the merchant ends a CREATED or ACTIVE subscription. */
export async function cancelByMerchant(tx: Tx, merchantId: string, id: string): Promise<Subscription> {
  const sub = await lockSubscription(tx, id, merchantId);
  if (!sub) throw notFound('Subscription');
  if (sub.status !== 'CREATED' && sub.status !== 'ACTIVE') {
    throw new AppError('INVALID_STATE', `Subscription is ${sub.status}; only a CREATED or ACTIVE subscription can be cancelled`);
  }
  return endSubscription(tx, sub, 'CANCELLED', 'MERCHANT');
}

/** The payer's bank reports a refusal of the authorization. */
export function rejectSubscription(rt: Runtime, id: string): Promise<Subscription> {
  return withTransaction(rt.pool, async (tx) => {
    const sub = await lockForProvider(tx, id);
    assertAwaitingAuthorization(sub);
    return endSubscription(tx, sub, 'REJECTED', 'PAYER');
  });
}

/** The payer cancels an ACTIVE subscription at their bank. */
export function cancelByPayer(rt: Runtime, id: string): Promise<Subscription> {
  return withTransaction(rt.pool, async (tx) => {
    const sub = await lockForProvider(tx, id);
    if (sub.status !== 'ACTIVE') throw wrongState(sub, 'an ACTIVE');
    return endSubscription(tx, sub, 'CANCELLED', 'PAYER');
  });
}

/** The expiry job: a CREATED subscription still not authorized at its deadline becomes EXPIRED, once. */
export async function expireSubscription(rt: Runtime, id: string): Promise<void> {
  await withTransaction(rt.pool, async (tx) => {
    const sub = await lockSubscription(tx, id, null);
    if (!sub || sub.status !== 'CREATED') return;
    // Run early (clock skew between worker and database): come back when it is due.
    if (sub.expires_at > new Date()) return enqueue(tx, EXPIRE_TASK, { subscriptionId: id }, { runAt: sub.expires_at, jobKey: `${EXPIRE_TASK}:${id}` });
    await endSubscription(tx, sub, 'EXPIRED', null);
  });
}

/**
 * ACTIVE → COMPLETED once its last cycle (the one due on or before endDate) is PAID or EXPIRED — or was never
 * issued and no longer can be (its issue day, 2 days before it is due, passed: docs/contract/subscriptions.md#states).
 */
export async function completeIfDone(tx: Tx, sub: SubscriptionRow, today = saoPauloDate(new Date())): Promise<void> {
  const last = lastCycle(sub.start_date, sub.frequency, sub.end_date);
  if (sub.status !== 'ACTIVE' || last === null) return;
  const cycle = await selectCycle(tx, sub.id, last);
  let done: boolean;
  if (!cycle) done = cycleIssueDate(cycleDueDate(sub.start_date, sub.frequency, last), today) === null;
  else if (cycle.abandoned) done = true;
  else if (!cycle.charge_id) done = false;
  else {
    const status: ChargeStatus | undefined = (await lockCharge(tx, 'id', cycle.charge_id))?.effective_status;
    done = status !== undefined && status !== 'PENDING';
  }
  if (done) await endSubscription(tx, sub, 'COMPLETED', null);
}
