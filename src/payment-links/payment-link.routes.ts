import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import {
  PaymentLinkCreateBody, PaymentLinkListQuery, PaymentLinkParams, PaymentLinkPatchBody, PaymentLinkQrCodeSchema, PaymentLinkSchema,
} from './payment-link.schemas.js';
import { createPaymentLink, getPaymentLink, linkQrCode, listPaymentLinks, setLinkActive } from './payment-link.service.js';

const tags = ['payment links'];
type Params = Static<typeof PaymentLinkParams>;

/** docs/contract/checkouts.md#payment-links: creating or deactivating a link is like creating charges. */
export function paymentLinkRoutes(rt: Runtime) {
  return async (app: FastifyInstance) => {
    app.post('/payment-links', {
      onRequest: requirePermission('operate'),
      schema: { tags, body: PaymentLinkCreateBody, response: { 201: Envelope(PaymentLinkSchema), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) => {
      const link = await createPaymentLink(rt, req.auth!.merchant, req.body as Static<typeof PaymentLinkCreateBody>, req.idempotency);
      return reply.code(201).send(ok(link));
    });

    app.get('/payment-links', {
      schema: { tags, querystring: PaymentLinkListQuery, response: { 200: ListEnvelope(PaymentLinkSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listPaymentLinks(rt, req.auth!.merchant.id, req.query as Static<typeof PaymentLinkListQuery>);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/payment-links/:id', {
      schema: { tags, params: PaymentLinkParams, response: { 200: Envelope(PaymentLinkSchema), ...errorResponses } },
    }, async (req) => ok(await getPaymentLink(rt, req.auth!.merchant.id, (req.params as Params).id)));

    app.get('/payment-links/:id/qr-code', {
      schema: {
        tags, summary: 'The link\'s URL as a QR code image, to print', params: PaymentLinkParams,
        response: { 200: Envelope(PaymentLinkQrCodeSchema), ...errorResponses },
      },
    }, async (req) => ok(await linkQrCode(rt, req.auth!.merchant.id, (req.params as Params).id)));

    app.patch('/payment-links/:id', {
      onRequest: requirePermission('operate'),
      schema: { tags, params: PaymentLinkParams, body: PaymentLinkPatchBody, response: { 200: Envelope(PaymentLinkSchema), ...errorResponses } },
    }, async (req) => {
      const { active } = req.body as Static<typeof PaymentLinkPatchBody>;
      return ok(await setLinkActive(rt, req.auth!.merchant.id, (req.params as Params).id, active));
    });
  };
}
