import { withTransaction, type TransactionHook } from '../platform/db.js';
import { notFound, validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { insertTestDelivery } from './delivery.sql.js';
import { newWebhookSecret, sealWebhookSecret } from './endpoint-secret.crypto.js';
import { sendSigned } from './webhook-send.service.js';
import { restartFailed, rotateSecretRow, startSeries } from './webhook-ops.sql.js';
import { deliveryView, type Delivery } from './webhook.service.js';
import { selectEndpoint } from './webhook.sql.js';

const FOREIGN_KEY_VIOLATION = '23503';
const endpointNotFound = () => notFound('Webhook endpoint');

async function endpointOf(rt: Runtime, merchantId: string, id: string) {
  const row = await selectEndpoint(rt.pool, merchantId, id);
  if (!row) throw endpointNotFound();
  return row;
}

/**
 * POST /webhooks/{id}/test: a WEBHOOK_TEST event sent now to this endpoint only, one attempt, whatever
 * it subscribes to. The event, its state and the attempt are written in one statement after the send,
 * so no connection is held during it and a crash mid-send leaves nothing half-recorded.
 */
export async function testEndpoint(rt: Runtime, merchantId: string, endpointId: string, hook?: TransactionHook<Delivery>): Promise<Delivery> {
  const endpoint = await endpointOf(rt, merchantId, endpointId);
  const eventId = newId('evt');
  const createdAt = new Date();
  const data = { webhookId: endpointId };
  const body = JSON.stringify({ id: eventId, event: 'WEBHOOK_TEST', createdAt: createdAt.toISOString(), data });
  const previous = endpoint.secret_previous_expires_at && endpoint.secret_previous_expires_at > new Date() ? endpoint.secret_previous_encrypted : null;
  const result = await sendSigned(rt, { ...endpoint, endpointId, eventId, body, secret_previous_encrypted: previous });
  if (!result) throw endpointNotFound();
  const attempt = {
    id: newId('dlv'), merchantId, endpointId, eventId, statusCode: result.statusCode, success: result.success, error: result.error,
    durationMs: result.durationMs,
  };
  try {
    const row = await insertTestDelivery(rt.pool, { body, createdAt }, attempt);
    // With an Idempotency-Key the answer is stored in a transaction of its own; the ping is already recorded.
    return hook ? await withTransaction(rt.pool, async () => deliveryView(row), hook) : deliveryView(row);
  } catch (err) {
    if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw endpointNotFound(); // deleted meanwhile
    throw err;
  }
}

export interface Redelivery {
  webhookId: string;
  eventId: string;
  queued: true;
}

/** POST /webhooks/{id}/redeliver: a new series of up to 3 attempts, under the automatic rules. */
export async function redeliver(rt: Runtime, merchantId: string, endpointId: string, eventId: string, hook?: TransactionHook<Redelivery>): Promise<Redelivery> {
  await endpointOf(rt, merchantId, endpointId);
  return withTransaction(rt.pool, async (tx) => {
    if (!(await startSeries(tx, { merchantId, endpointId, eventId, retentionDays: rt.config.eventRetentionDays }))) {
      throw validationError('eventId', 'not delivered to this endpoint');
    }
    return { webhookId: endpointId, eventId, queued: true as const };
  }, hook);
}

/** POST /webhooks/{id}/recover: redelivers every event since `since` whose delivery here FAILED and has not succeeded since. */
export async function recover(rt: Runtime, merchantId: string, endpointId: string, since: string, hook?: TransactionHook<{ queued: number }>) {
  await endpointOf(rt, merchantId, endpointId);
  return withTransaction(rt.pool, async (tx) => ({
    queued: await restartFailed(tx, { merchantId, endpointId, since, retentionDays: rt.config.eventRetentionDays }),
  }), hook);
}

export interface RotatedSecret {
  id: string;
  secret: string;
  previousSecretExpiresAt: string | null;
}

/** POST /webhooks/{id}/rotate-secret: a new secret; the old one keeps signing for `keepSeconds`. */
export async function rotateSecret(
  rt: Runtime, merchantId: string, endpointId: string, keepSeconds: number, hook?: TransactionHook<RotatedSecret>,
): Promise<RotatedSecret> {
  const secret = newWebhookSecret();
  const secretEncrypted = sealWebhookSecret(rt.config.encryptionKey, secret);
  return withTransaction(rt.pool, async (tx) => {
    const row = await rotateSecretRow(tx, { merchantId, endpointId, secretEncrypted, keepSeconds });
    if (!row) throw endpointNotFound();
    return { id: row.id, secret, previousSecretExpiresAt: row.previous_expires_at?.toISOString() ?? null };
  }, hook);
}
