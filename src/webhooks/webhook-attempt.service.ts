import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { webhookAttempts, webhookOutcome } from './webhook.metrics.js';
import { recordAttempts, type AttemptRecord, type DeliveryTarget } from './delivery.sql.js';
import { sendSigned } from './webhook-send.service.js';

export const MAX_DELIVERY_ATTEMPTS = 3;

/** Wait before attempt n+1 after attempt n failed: base × 4^(n−1) (docs/contract/webhooks.md#delivery). */
export const retryDelayMs = (baseMs: number, failedAttempt: number): number => baseMs * 4 ** (failedAttempt - 1);

/** An attempt that took half the timeout or more (timeouts included) puts the endpoint in the slow lane. */
export const isSlowAttempt = (durationMs: number, timeoutMs: number): boolean => durationMs * 2 >= timeoutMs;

/**
 * Sends one claimed attempt, holding no database connection meanwhile (slow receivers never hold one), and
 * says what to record: the outcome, and what the pair does next — end its series, or retry after
 * base × 4^(n−1) in the lane this attempt's speed puts the endpoint in. Undefined when the endpoint
 * vanished while its secret was drawn.
 */
export async function sendAttempt(rt: Runtime, target: DeliveryTarget): Promise<AttemptRecord | undefined> {
  const result = await sendSigned(rt, { ...target, endpointId: target.endpoint_id, eventId: target.event_id });
  if (!result) return undefined;
  const retry = !result.success && result.retryable && target.attempt < MAX_DELIVERY_ATTEMPTS;
  return {
    id: newId('dlv'), merchantId: target.merchant_id, endpointId: target.endpoint_id, eventId: target.event_id,
    eventType: target.event_type, series: target.series, attempt: target.attempt, statusCode: result.statusCode, success: result.success,
    error: result.error, durationMs: result.durationMs, manual: target.series > 1,
    next: result.success ? 'SUCCEEDED' : retry ? 'RETRY' : 'FAILED',
    retryAt: retry ? new Date(Date.now() + retryDelayMs(rt.config.webhookRetryBaseMs, target.attempt)) : null,
    slow: isSlowAttempt(result.durationMs, rt.config.webhookTimeoutMs),
  };
}

/** Records sent attempts in one statement (delivery.sql.ts recordAttempts) and counts those recorded now. */
export async function recordSent(rt: Runtime, records: AttemptRecord[]): Promise<void> {
  for (const r of await recordAttempts(rt.pool, records)) webhookAttempts.inc({ outcome: webhookOutcome(r.success, r.next === 'RETRY') });
}
