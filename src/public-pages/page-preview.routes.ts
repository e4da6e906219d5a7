import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../auth/permission.rules.js';
import { BrandingPutBody } from '../branding/branding.schemas.js';
import { draftBranding } from '../branding/branding.service.js';
import { selectBranding } from '../branding/branding.sql.js';
import { errorResponses, FileResponse, StringEnum } from '../platform/http/envelope.js';
import { PaymentLinkCreateBody } from '../payment-links/payment-link.schemas.js';
import { linkRow } from '../payment-links/payment-link.service.js';
import type { PaymentLinkRow } from '../payment-links/payment-link.sql.js';
import type { Runtime } from '../runtime.js';
import { renderLinkPage } from './link-page.view.js';
import { storeOf } from './page-layout.view.js';
import { pickLang, texts } from './page-text.rules.js';

// Unlike a public page, which ignores what it does not know, a merchant route refuses it.
const LangQuery = Type.Object({ lang: Type.Optional(StringEnum(['pt', 'en'] as const)) });
const page = FileResponse('text/html', 'The page as a payer would see it (HTML, no script); the dashboard shows it in a sandboxed frame');
const PREVIEW_ID = 'plk_preview';

/**
 * The dashboard's previews (docs/checkouts.md#previews, docs/contract/checkouts.md#previews): the link page of a
 * draft link, or of a sample link under draft branding, rendered by the very code that serves /l/{id}, and written
 * nowhere. Merchant routes (a session or a key; the roles of creating a link and of changing the branding).
 */
export function pagePreviewRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    // Not /payment-links/preview: GET and PATCH /payment-links/{id} would answer that path for "preview".
    app.post('/payment-link-preview', {
      onRequest: requirePermission('operate'),
      schema: {
        tags: ['payment links'], summary: 'The link page a POST /payment-links of this body would make (HTML); writes nothing',
        body: PaymentLinkCreateBody, querystring: LangQuery, response: { 200: page, ...errorResponses },
      },
    }, async (req, reply) => {
      const merchant = req.auth!.merchant;
      const lang = pickLang(req.query, req.headers['accept-language']);
      const t = texts(lang);
      const link: PaymentLinkRow = { ...linkRow(PREVIEW_ID, merchant.id, req.body), active: true, created_at: new Date() };
      const brand = await selectBranding(rt.pool, merchant.id);
      const store = storeOf({ ...merchant, display_name: brand?.display_name ?? null, primary_color: brand?.primary_color ?? null, logo_id: brand?.logo_id ?? null });
      return renderLinkPage(reply, 200, { link, t, lang, typed: {}, problems: {}, unavailable: null, store, preview: t.previewNotice });
    });

    app.post('/me/branding/preview', {
      onRequest: requirePermission('developer'),
      schema: {
        tags: ['branding'], summary: 'A sample link page under the branding a PUT /me/branding of this body would leave (HTML); writes nothing',
        body: BrandingPutBody, querystring: LangQuery, response: { 200: page, ...errorResponses },
      },
    }, async (req, reply) => {
      const merchant = req.auth!.merchant;
      const lang = pickLang(req.query, req.headers['accept-language']);
      const t = texts(lang);
      const store = storeOf({ ...merchant, ...(await draftBranding(rt.pool, merchant.id, req.body)) });
      const link: PaymentLinkRow = {
        ...linkRow(PREVIEW_ID, merchant.id, { name: t.sampleName, description: t.sampleDescription, amount: 4990, customerFields: ['name', 'email'] }),
        active: true, created_at: new Date(),
      };
      return renderLinkPage(reply, 200, { link, t, lang, typed: {}, problems: {}, unavailable: null, store, preview: t.previewNotice });
    });
  };
}
