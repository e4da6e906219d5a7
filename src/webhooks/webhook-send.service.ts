import type { Runtime } from '../runtime.js';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret } from './endpoint-secret.crypto.js';
import { EVENT_ID_HEADER, signatureHeader, SIGNATURE_HEADER } from './signature.crypto.js';
import { sendWebhook, type SendResult } from './webhook.client.js';
import { fillMissingSecret } from './webhook.sql.js';

export interface SignedSend {
  endpointId: string;
  eventId: string;
  url: string;
  body: string;
  secret_encrypted: string | null;
  /** The pre-rotation secret while it is still live: then the header carries a second v1. */
  secret_previous_encrypted: string | null;
}

/** An endpoint made by a clientCallbackUrl gets its secret here, at its first delivery (callback-endpoint.service.ts). */
async function endpointSecret(rt: Runtime, endpointId: string, stored: string | null): Promise<string | undefined> {
  const key = rt.config.encryptionKey;
  const sealed = stored ?? (await fillMissingSecret(rt.pool, endpointId, sealWebhookSecret(key, newWebhookSecret())));
  return sealed === undefined ? undefined : openWebhookSecret(key, sealed);
}

/**
 * One signed POST of an event's stored body (the same bytes on every attempt), signed afresh with its
 * own t (docs/contract/webhooks.md#signature) by every live secret, the newest first. Undefined when the endpoint is gone.
 */
export async function sendSigned(rt: Runtime, s: SignedSend): Promise<SendResult | undefined> {
  const secret = await endpointSecret(rt, s.endpointId, s.secret_encrypted);
  if (secret === undefined) return undefined;
  const secrets = s.secret_previous_encrypted ? [secret, openWebhookSecret(rt.config.encryptionKey, s.secret_previous_encrypted)] : [secret];
  return sendWebhook({
    url: s.url,
    body: s.body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Pixgate-Webhooks/1',
      [SIGNATURE_HEADER]: signatureHeader(secrets, s.body, Math.floor(Date.now() / 1000)),
      [EVENT_ID_HEADER]: s.eventId,
    },
    timeoutMs: rt.config.webhookTimeoutMs,
    allowPrivate: rt.config.webhookAllowPrivate,
  });
}
