import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { openWebhookSecret, sealWebhookSecret } from './endpoint-secret.crypto.js';
import { recover, redeliver, rotateSecret, testEndpoint, type RotatedSecret } from './webhook-ops.service.js';
import {
  DeliverySchema, IdParams, RecoverAnswer, RecoverBody, RedeliverAnswer, RedeliverBody, RotateBody, RotatedSecretSchema,
} from './webhook.schemas.js';

const tags = ['webhooks'];
const DEFAULT_OVERLAP_SECONDS = 86_400;

/** docs/contract/webhooks.md#webhook-operations: test, redeliver, recover, rotate-secret. Each takes an Idempotency-Key (the scope's plugin). */
export function webhookOperationRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const onRequest = requirePermission('developer');

    app.post('/webhooks/:id/test', {
      onRequest,
      schema: { tags, params: IdParams, response: { 200: Envelope(DeliverySchema), ...errorResponses } },
    }, async (req) => ok(await testEndpoint(rt, req.auth!.merchant.id, req.params.id, req.idempotency)));

    app.post('/webhooks/:id/redeliver', {
      onRequest,
      schema: { tags, params: IdParams, body: RedeliverBody, response: { 200: Envelope(RedeliverAnswer), ...errorResponses } },
    }, async (req) => ok(await redeliver(rt, req.auth!.merchant.id, req.params.id, req.body.eventId, req.idempotency)));

    app.post('/webhooks/:id/recover', {
      onRequest,
      schema: { tags, params: IdParams, body: RecoverBody, response: { 200: Envelope(RecoverAnswer), ...errorResponses } },
    }, async (req) => ok(await recover(rt, req.auth!.merchant.id, req.params.id, req.body.since, req.idempotency)));

    app.post('/webhooks/:id/rotate-secret', {
      onRequest,
      // Every field is optional, so no body at all is the empty one; a JSON `null` is a body, not an object (400).
      preValidation: async (req) => {
        if (req.body === undefined) req.body = {};
      },
      schema: { tags, params: IdParams, body: RotateBody, response: { 200: Envelope(RotatedSecretSchema), ...errorResponses } },
      config: {
        // The stored answer holds the new secret sealed, never in clear; a replay opens it.
        idempotency: {
          redact: (data) => {
            const { secret, ...rest } = data as RotatedSecret;
            return { ...rest, sealedSecret: sealWebhookSecret(rt.config.encryptionKey, secret) };
          },
          restore: async (_merchantId, data) => {
            const { sealedSecret, ...rest } = data as Omit<RotatedSecret, 'secret'> & { sealedSecret: string };
            return { ...rest, secret: openWebhookSecret(rt.config.encryptionKey, sealedSecret) };
          },
        },
      },
    }, async (req) => ok(await rotateSecret(
      rt, req.auth!.merchant.id, req.params.id, req.body.expiresInSeconds ?? DEFAULT_OVERLAP_SECONDS, req.idempotency,
    )));
  };
}
