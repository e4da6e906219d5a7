import { withTransaction, type Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { webhookAttempts, webhookOutcome } from './webhook.metrics.js';
import { recordAttempt, scheduleAttempt, type AttemptRecord, type DeliveryTarget } from './delivery.sql.js';
import { sendSigned } from './webhook-send.service.js';

export const MAX_DELIVERY_ATTEMPTS = 3;

export interface DeliveryJob {
  eventId: string;
  endpointId: string;
  attempt: number;
  /** 1 = the automatic series; each redeliver starts the next. Absent in jobs queued before series existed. */
  series?: number;
}

/** Wait before attempt n+1 after attempt n failed: base × 4^(n−1) (docs/contract/webhooks.md#delivery). */
export const retryDelayMs = (baseMs: number, failedAttempt: number): number => baseMs * 4 ** (failedAttempt - 1);

const FOREIGN_KEY_VIOLATION = '23503';

/** One attempt of a pair's series: which event, to which endpoint, which series, which attempt of it. */
export type Attempt = Required<DeliveryJob>;

/** An attempt that took half the timeout or more (timeouts included) puts the endpoint in the slow lane. */
export const isSlowAttempt = (durationMs: number, timeoutMs: number): boolean => durationMs * 2 >= timeoutMs;

/**
 * Sends one attempt and records it. No transaction is open during the HTTP call, so slow receivers never
 * hold database connections. The next attempt goes to the lane this one's speed puts the endpoint in.
 * Returns whether the receiver took it.
 */
export async function attempt(rt: Runtime, job: Attempt, target: DeliveryTarget): Promise<boolean> {
  const result = await sendSigned(rt, { ...target, endpointId: job.endpointId, eventId: job.eventId });
  if (!result) return true; // the endpoint vanished while its secret was drawn
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
    await scheduleAttempt(db, { ...job, attempt: job.attempt + 1 }, {
      slow, runAt: new Date(Date.now() + retryDelayMs(rt.config.webhookRetryBaseMs, job.attempt)),
    });
  };
  await (retry ? withTransaction(rt.pool, write) : write(rt.pool)).then(() => {
    if (recorded) webhookAttempts.inc({ outcome: webhookOutcome(result.success, retry) }); // counted once committed
  }).catch((err: unknown) => {
    if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
  });
  return result.success;
}

