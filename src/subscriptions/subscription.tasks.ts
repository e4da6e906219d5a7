import type { TaskList } from 'graphile-worker';
import { saoPauloDate } from '../calendar/index.js';
import { withTransaction } from '../platform/db.js';
import { periodicTask } from '../platform/periodic.js';
import type { Runtime } from '../runtime.js';
import { issueDueCycles } from './subscription-cycle.service.js';
import { askForRetry, CHARGE_SETTLED_TASK, RETRY_TASK, settleSubscriptionCharge } from './subscription-debit.service.js';
import {
  completeIfDone, EXPIRE_TASK, expireSubscription, ISSUE_TASK, issueJob, PROVIDER_CANCEL_TASK,
} from './subscription-state.service.js';
import {
  lockSubscription, selectAuthorizationOverdue, selectEnding, selectIssueDue, selectSubscription, selectSubscriptionsWithUnissued, selectUnpaidCycleTxids,
} from './subscription.sql.js';

const SWEEP_TASK = 'subscriptions.sweep';
/** Rows a sweep takes of each kind; the rest wait for the next run. */
const BATCH = 500;

/**
 * The subscriptions sweep (docs/contract/subscriptions.md#issuing), every SUBSCRIPTION_SWEEP_INTERVAL_MS (30 s), once across the fleet: queues the issue
 * job of every fixed-amount subscription whose next cycle is due to be issued, and of every subscription with a
 * claimed cycle left without its charge (its process died); expires the subscriptions whose wait for an authorization
 * ended (a second line behind their own expiry job); and completes those whose last cycle is settled or can no
 * longer be issued. Everything it starts is safe to run twice and keyed, so a slow sweep never doubles work.
 */
async function sweep(rt: Runtime): Promise<void> {
  const today = saoPauloDate(new Date());
  for (const id of await selectIssueDue(rt.pool, today, BATCH)) await issueJob(rt.pool, id);
  for (const id of await selectSubscriptionsWithUnissued(rt.pool, rt.config.subscriptionSweepEveryMs, BATCH)) await issueJob(rt.pool, id);
  for (const id of await selectAuthorizationOverdue(rt.pool, BATCH)) await expireSubscription(rt, id);
  for (const id of await selectEnding(rt.pool, today, BATCH)) {
    await withTransaction(rt.pool, async (tx) => {
      const sub = await lockSubscription(tx, id, null);
      if (sub) await completeIfDone(tx, sub, today);
    });
  }
}

/** The provider is told a recurrence ended, with its cycle charges not paid (the provider's own word decides nothing here). */
async function cancelAtProvider(rt: Runtime, subscriptionId: string): Promise<void> {
  const sub = await selectSubscription(rt.pool, subscriptionId);
  if (!sub?.provider_ref) return;
  await rt.provider.cancelRecurrence({ providerRef: sub.provider_ref, txids: await selectUnpaidCycleTxids(rt.pool, subscriptionId) });
}

const idOf = (payload: unknown, key: string): string => {
  const value = (payload as Record<string, unknown> | null)?.[key];
  if (typeof value !== 'string') throw new Error(`job payload without ${key}`);
  return value;
};

export function subscriptionTasks(rt: Runtime): { tasks: TaskList; schedule(): Promise<void> } {
  const periodic = periodicTask(rt.pool, SWEEP_TASK, rt.config.subscriptionSweepEveryMs, () => sweep(rt));
  return {
    tasks: {
      ...periodic.tasks,
      [ISSUE_TASK]: (payload) => issueDueCycles(rt, idOf(payload, 'subscriptionId')),
      [EXPIRE_TASK]: (payload) => expireSubscription(rt, idOf(payload, 'subscriptionId')),
      [CHARGE_SETTLED_TASK]: (payload) => settleSubscriptionCharge(rt, idOf(payload, 'chargeId')),
      [RETRY_TASK]: (payload) => askForRetry(rt, idOf(payload, 'chargeId'), idOf(payload, 'date')),
      [PROVIDER_CANCEL_TASK]: (payload) => cancelAtProvider(rt, idOf(payload, 'subscriptionId')),
    },
    schedule: periodic.schedule,
  };
}
