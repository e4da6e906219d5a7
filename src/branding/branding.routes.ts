import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { BrandingPutBody, BrandingSchema } from './branding.schemas.js';
import { getBranding, putBranding } from './branding.service.js';

const tags = ['branding'];

/** docs/contract/checkouts.md#branding: every role reads it; OWNER and DEVELOPER (FULL and DEVELOPER keys) change it. */
export function brandingRoutes(rt: Runtime) {
  return async (app: FastifyInstance) => {
    app.get('/me/branding', {
      schema: { tags, response: { 200: Envelope(BrandingSchema), ...errorResponses } },
    }, async (req) => ok(await getBranding(rt.pool, req.auth!.merchant, rt.config.publicUrl)));

    app.put('/me/branding', {
      onRequest: requirePermission('developer'),
      schema: { tags, body: BrandingPutBody, response: { 200: Envelope(BrandingSchema), ...errorResponses } },
    }, async (req) => ok(await putBranding(rt.pool, req.auth!.merchant, req.body as Static<typeof BrandingPutBody>, rt.config.publicUrl)));
  };
}
