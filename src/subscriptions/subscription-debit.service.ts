import { saoPauloDate, type CivilDate } from '../calendar/index.js';
import { receivePayment } from '../charges/charge-payment.service.js';
import type { Charge } from '../charges/charge.schemas.js';
import { lockCharge } from '../charges/charge.sql.js';
import { loadCharge } from '../charges/charge.view.js';
import { emitEvent, emitEvents, type NewEvent } from '../events/event.sql.js';
import { withTransaction } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { enqueue } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { retryDate } from './cycle.rules.js';
import { appendAttempt, lockCycleOfCharge, lockSubscription, selectCycleOfCharge, selectSubscription } from './subscription.sql.js';
import { activate, completeIfDone, expireCycleCharge } from './subscription-state.service.js';

/** Asks the provider for a retry of a cycle's charge, after the commit that recorded the failed attempt. */
export const RETRY_TASK = 'subscriptions.provider-retry';
/** Queued by the charges_subscription_settled trigger (migration 0035) when a subscription's charge is paid or expires. */
export const CHARGE_SETTLED_TASK = 'subscriptions.charge-settled';

/** A debit attempt of a cycle's charge by the payer's bank, as the provider reports it. */
export interface DebitAttempt {
  /** The São Paulo day of the attempt. */
  date: CivilDate;
  /** `PAID`, or why it failed (`INSUFFICIENT_FUNDS`, ...). */
  outcome: string;
  endToEndId: string;
}

export interface DebitOptions {
  /** The simulator's payer bank: a charge that is not PENDING cannot be debited (INVALID_STATE). */
  onlyPending?: boolean;
}

/**
 * A debit attempt of a cycle's charge (docs/contract/subscriptions.md#debits). PAID: the payment, through the one
 * payment path of every charge (credited once, by its end-to-end id). Failed: recorded in the cycle's attempts with
 * SUBSCRIPTION_CHARGE_FAILED, then either a retry asked of the payer's bank (THREE_IN_7_DAYS, a job after the
 * commit) or the charge EXPIRED with the outcome as its failedReason. A failure reported twice (same end-to-end id)
 * is recorded once. Answers the charge.
 */
export async function recordDebit(rt: Runtime, chargeId: string, attempt: DebitAttempt, opts: DebitOptions = {}): Promise<Charge> {
  const cycle = await selectCycleOfCharge(rt.pool, chargeId);
  if (!cycle) throw notFound('Subscription charge');
  if (attempt.outcome === 'PAID') {
    const charge = (await loadCharge(rt.pool, chargeId))!;
    return receivePayment(rt, {
      txid: charge.txid, endToEndId: attempt.endToEndId, amount: charge.amount, paidAt: new Date(), payer: null,
    }, { onlyPending: opts.onlyPending });
  }
  return withTransaction(rt.pool, async (tx) => {
    const sub = (await lockSubscription(tx, cycle.subscription_id, null))!;
    const charge = (await lockCharge(tx, 'id', chargeId))!;
    const failedBefore = (await lockCycleOfCharge(tx, chargeId))!.attempts;
    if (charge.effective_status !== 'PENDING' || failedBefore.some((a) => a.end2endId === attempt.endToEndId)) {
      if (opts.onlyPending) throw new AppError('INVALID_STATE', `Charge is ${charge.effective_status}; only a PENDING charge can be debited`);
      return (await loadCharge(tx, chargeId))!;
    }
    const retryOn = retryDate(cycle.due_date, sub.retry_policy, attempt.date, failedBefore.length + 1);
    await appendAttempt(tx, chargeId, { date: attempt.date, outcome: attempt.outcome, end2endId: attempt.endToEndId }, retryOn);
    const failed: NewEvent = { merchantId: charge.merchant_id, type: 'SUBSCRIPTION_CHARGE_FAILED', data: await loadCharge(tx, chargeId) };
    if (retryOn) {
      await emitEvent(tx, failed);
      await enqueue(tx, RETRY_TASK, { chargeId, date: retryOn }, { jobKey: `${RETRY_TASK}:${chargeId}` });
    } else {
      // One call, so the failure lists before the expiry it causes (docs/contract/webhooks.md#events-api).
      await emitEvents(tx, [failed, await expireCycleCharge(tx, charge.merchant_id, chargeId, attempt.outcome)]);
    }
    return (await loadCharge(tx, chargeId))!;
  });
}

/**
 * The provider's final word that a cycle's charge will not be debited (API Pix: a cobr REJEITADA, EXPIRADA or
 * CANCELADA at the PSP): a charge still PENDING is EXPIRED, its reason the last failed attempt's outcome, else
 * NO_DEBIT. Safe to repeat.
 */
export async function failCycleCharge(rt: Runtime, chargeId: string): Promise<void> {
  const cycle = await selectCycleOfCharge(rt.pool, chargeId);
  if (!cycle) return;
  await withTransaction(rt.pool, async (tx) => {
    await lockSubscription(tx, cycle.subscription_id, null);
    const charge = await lockCharge(tx, 'id', chargeId);
    if (charge?.status !== 'PENDING') return;
    const attempts = (await lockCycleOfCharge(tx, chargeId))!.attempts;
    await emitEvent(tx, await expireCycleCharge(tx, charge.merchant_id, chargeId, attempts.at(-1)?.outcome ?? 'NO_DEBIT'));
  });
}

/** The retry job: the payer's bank is asked for one more attempt on `date`, unless the charge was settled since. */
export async function askForRetry(rt: Runtime, chargeId: string, date: CivilDate): Promise<void> {
  const cycle = await selectCycleOfCharge(rt.pool, chargeId);
  const charge = await loadCharge(rt.pool, chargeId);
  if (!cycle || charge?.status !== 'PENDING' || cycle.retry_on !== date) return;
  const sub = (await selectSubscription(rt.pool, cycle.subscription_id))!;
  await rt.provider.retryCycleCharge({ txid: cycle.txid, providerRef: sub.provider_ref!, date });
}

/**
 * A subscription's charge was paid or expired (the trigger's job, and the simulator at once): journey 3's first
 * charge paid activates a subscription waiting for it; a cycle's may complete it. Safe to run again.
 */
export async function settleSubscriptionCharge(rt: Runtime, chargeId: string): Promise<void> {
  const charge = await loadCharge(rt.pool, chargeId);
  if (!charge?.subscriptionId) return;
  await withTransaction(rt.pool, async (tx) => {
    const sub = (await lockSubscription(tx, charge.subscriptionId!, null))!;
    if (sub.first_charge_id === chargeId) {
      if (sub.status === 'CREATED' && sub.expires_at > new Date() && (await lockCharge(tx, 'id', chargeId))?.status === 'PAID') await activate(tx, sub);
      return;
    }
    await completeIfDone(tx, sub, saoPauloDate(new Date()));
  });
}
