import type { TaskList } from 'graphile-worker';
import { withTransaction, type Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { insertDelivery, selectDeliveryTarget, type DeliveryTarget } from './delivery.sql.js';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret } from './endpoint-secret.js';
import { EVENT_ID_HEADER, signatureHeader, SIGNATURE_HEADER } from './signature.js';
import {
  DELIVER_TASK, enqueueDelivery, MAX_DELIVERY_ATTEMPTS, retryDelayMs, type DeliveryJob,
} from './webhook-fanout.js';
import { sendWebhook } from './webhook-sender.js';
import { fillMissingSecret } from './webhook.sql.js';

const FOREIGN_KEY_VIOLATION = '23503';

function parseJob(payload: unknown): DeliveryJob {
  const p = payload as Partial<DeliveryJob> | null;
  if (typeof p?.eventId !== 'string' || typeof p.endpointId !== 'string' || !Number.isInteger(p.attempt)) {
    throw new Error(`${DELIVER_TASK}: malformed payload`);
  }
  return { eventId: p.eventId, endpointId: p.endpointId, attempt: p.attempt! };
}

/** An endpoint made by a clientCallbackUrl gets its secret here, at its first delivery (callback-endpoint.ts). */
async function endpointSecret(rt: Runtime, endpointId: string, target: DeliveryTarget): Promise<string | undefined> {
  const key = rt.config.encryptionKey;
  const stored = target.secret_encrypted ?? (await fillMissingSecret(rt.pool, endpointId, sealWebhookSecret(key, newWebhookSecret())));
  return stored === undefined ? undefined : openWebhookSecret(key, stored);
}

/**
 * One delivery attempt of one event to one endpoint. Safe to run twice: an attempt already recorded
 * is not sent again, and the record and the next attempt's job commit together. No transaction is
 * open during the HTTP call, so slow receivers never hold database connections.
 */
export async function deliver(rt: Runtime, payload: unknown): Promise<void> {
  const job = parseJob(payload);
  const target = await selectDeliveryTarget(rt.pool, job);
  if (!target || target.recorded) return; // endpoint deleted (pending deliveries are dropped), or already done
  const secret = await endpointSecret(rt, job.endpointId, target);
  if (secret === undefined) return;

  const result = await sendWebhook({
    url: target.url,
    body: target.body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Pixgate-Webhooks/1',
      // Each attempt is signed afresh with its own t (decisions part 14); the body bytes never change.
      [SIGNATURE_HEADER]: signatureHeader(secret, target.body, Math.floor(Date.now() / 1000)),
      [EVENT_ID_HEADER]: job.eventId,
    },
    timeoutMs: rt.config.webhookTimeoutMs,
    allowPrivate: rt.config.webhookAllowPrivate,
  });

  const attempt = {
    id: newId('dlv'), merchantId: target.merchant_id, endpointId: job.endpointId, eventId: job.eventId,
    eventType: target.event_type, attempt: job.attempt, statusCode: result.statusCode, success: result.success,
    error: result.error, durationMs: result.durationMs,
  };
  const retry = !result.success && result.retryable && job.attempt < MAX_DELIVERY_ATTEMPTS;
  // The record's foreign key check holds off a concurrent DELETE of the endpoint until it commits, and
  // fails if the endpoint is already gone (deleted while the request ran): then nothing more happens.
  // A retry commits with the record; an attempt already recorded (a rerun) schedules none.
  const record = async (db: Executor) => {
    if (!(await insertDelivery(db, attempt)) || !retry) return;
    const runAt = new Date(Date.now() + retryDelayMs(rt.config.webhookRetryBaseMs, job.attempt));
    await enqueueDelivery(db, { ...job, attempt: job.attempt + 1 }, runAt);
  };
  await (retry ? withTransaction(rt.pool, record) : record(rt.pool)).catch((err: unknown) => {
    if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
  });
}

export function webhookTasks(rt: Runtime): TaskList {
  return { [DELIVER_TASK]: (payload) => deliver(rt, payload) };
}
