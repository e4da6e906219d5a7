import type { TaskList } from 'graphile-worker';
import { withTransaction, type Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { enqueueNextAttempt, recordAttempt, selectDeliveryTarget, type AttemptRecord } from './delivery.sql.js';
import { FastLaneShares } from './fairness.js';
import {
  DELIVER_SLOW_TASK, DELIVER_TASK, deliveryJobKey, enqueueDelivery, MAX_DELIVERY_ATTEMPTS, retryDelayMs, type DeliveryJob,
} from './webhook-fanout.js';
import { sendSigned } from './webhook-send.js';
import { webhookAttempts, webhookOutcome } from '../platform/metrics.js';

const FOREIGN_KEY_VIOLATION = '23503';

function parseJob(payload: unknown): Required<DeliveryJob> {
  const p = payload as Partial<DeliveryJob> | null;
  if (typeof p?.eventId !== 'string' || typeof p.endpointId !== 'string' || !Number.isInteger(p.attempt)) {
    throw new Error(`${DELIVER_TASK}: malformed payload`);
  }
  return { eventId: p.eventId, endpointId: p.endpointId, attempt: p.attempt!, series: Number.isInteger(p.series) ? p.series! : 1 };
}

/** An attempt that took half the timeout or more (timeouts included) puts the endpoint in the slow lane. */
export const isSlowAttempt = (durationMs: number, timeoutMs: number): boolean => durationMs * 2 >= timeoutMs;

/**
 * One delivery attempt of one event to one endpoint. Safe to run twice: an attempt already recorded
 * is not sent again, and the record and the next attempt's job commit together. No transaction is
 * open during the HTTP call, so slow receivers never hold database connections.
 * In the fast lane, a delivery to a slow endpoint, or one beyond its merchant's share of this process's
 * slots, moves to the slow lane unsent (fairness.ts).
 */
export async function deliver(rt: Runtime, payload: unknown, fast: FastLaneShares | null): Promise<void> {
  const job = parseJob(payload);
  const target = await selectDeliveryTarget(rt.pool, job);
  // Endpoint deleted (pending deliveries are dropped), already done, or replaced by a newer series.
  if (!target || target.series === null || target.recorded || job.series !== target.series) return;
  if (fast && (target.slow || !fast.take(target.merchant_id))) {
    await enqueueDelivery(rt.pool, job, { slow: true });
    return;
  }
  try {
    await attempt(rt, job, target);
  } finally {
    fast?.release(target.merchant_id);
  }
}

async function attempt(rt: Runtime, job: Required<DeliveryJob>, target: NonNullable<Awaited<ReturnType<typeof selectDeliveryTarget>>>) {
  const result = await sendSigned(rt, { ...target, endpointId: job.endpointId, eventId: job.eventId });
  if (!result) return; // the endpoint vanished while its secret was drawn
  const record: AttemptRecord = {
    id: newId('dlv'), merchantId: target.merchant_id, endpointId: job.endpointId, eventId: job.eventId,
    eventType: target.event_type, series: job.series, attempt: job.attempt, statusCode: result.statusCode, success: result.success,
    error: result.error, durationMs: result.durationMs, manual: job.series > 1,
  };
  const slow = isSlowAttempt(result.durationMs, rt.config.webhookTimeoutMs);
  const retry = !result.success && result.retryable && job.attempt < MAX_DELIVERY_ATTEMPTS;
  const final = result.success ? 'SUCCEEDED' : retry ? null : 'FAILED';
  // The record's foreign key check holds off a concurrent DELETE of the endpoint until it commits, and
  // fails if the endpoint is already gone (deleted while the request ran): then nothing more happens.
  // A retry commits with the record; an attempt already recorded (a rerun) schedules none.
  let recorded = false;
  const write = async (db: Executor) => {
    if (!(await recordAttempt(db, record, { final, slow }))) return;
    recorded = true;
    if (!retry) return;
    const next = { ...job, attempt: job.attempt + 1 };
    await enqueueNextAttempt(db, job, JSON.stringify(next), {
      task: slow ? DELIVER_SLOW_TASK : DELIVER_TASK, priority: slow ? 1 : 0, key: deliveryJobKey(job.eventId, job.endpointId),
      runAt: new Date(Date.now() + retryDelayMs(rt.config.webhookRetryBaseMs, job.attempt)),
    });
  };
  await (retry ? withTransaction(rt.pool, write) : write(rt.pool)).then(() => {
    if (recorded) webhookAttempts.inc({ outcome: webhookOutcome(result.success, retry) }); // counted once committed
  }).catch((err: unknown) => {
    if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
  });
}

/** The fast lane shares its slots among merchants; the slow lane takes what it is given, in order. */
export function webhookTasks(rt: Runtime, fastSlots: number): { fast: TaskList; slow: TaskList } {
  const shares = new FastLaneShares(fastSlots);
  return {
    fast: { [DELIVER_TASK]: (payload) => deliver(rt, payload, shares) },
    slow: { [DELIVER_SLOW_TASK]: (payload) => deliver(rt, payload, null) },
  };
}
