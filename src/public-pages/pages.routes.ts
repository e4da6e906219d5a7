import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { selectLogo } from '../branding/branding.sql.js';
import { AppError, errorBody, notFound } from '../platform/errors.js';
import { ListenFeed } from '../platform/listen-feed.js';
import { Envelope, errorResponses, ok, StringEnum, Nullable, Timestamp } from '../platform/http/envelope.js';
import { LinkCheckoutBody, PublicCheckoutSchema } from '../payment-links/payment-link.schemas.js';
import { LinkRateLimited, LinkUnavailable, startLinkCheckout, unavailability } from '../payment-links/link-checkout.service.js';
import { PayerErrors } from '../payment-links/link-payer.rules.js';
import { findLinkWithMerchant } from '../payment-links/payment-link.service.js';
import type { Runtime } from '../runtime.js';
import { pickLang, texts, type Lang } from './page-text.rules.js';
import { otherLang, renderPage, storeOf, withLang, type Store } from './page-layout.view.js';
import { renderLinkPage, type Typed } from './link-page.view.js';
import { parseReais } from './reais.rules.js';
import { payPageHead, payPageMain } from './pay-page.view.js';
import { selectBrand, selectPayPage, selectPayStatus, type PayStatusRow } from './pages.sql.js';

const CHECKOUT_ID = /^chk_[0-9A-Za-z]{22}$/;
const LINK_ID = /^plk_[0-9A-Za-z]{22}$/;
const LOGO_ID = /^logo_[0-9A-Za-z]{22}$/;
const tags = ['public pages'];
// No credentials: an empty list overrides the document's default (an API key or a session) for these routes.
const security: Array<Record<string, string[]>> = [];
// No length bound of its own: an id of any length that is not a checkout's or link's is the 404 page (the router's
// limit on a parameter's length answers the same, publicRoutingError).
const IdParams = Type.Object({ id: Type.String() });
const LangQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 10 })) });
const StatusSchema = Type.Object({
  status: StringEnum(['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'] as const), paidAt: Nullable(Timestamp), expiresAt: Timestamp,
});
/** A server-sent stream ends after this long; the browser's EventSource reconnects by itself (and a draining process lets go). */
const STREAM_MAX_MS = 120_000;
const HEARTBEAT_MS = 25_000;

function asset(name: string, type: string) {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
}

function notFoundPage(req: FastifyRequest, reply: FastifyReply) {
  const lang = pickLang(req.query, req.headers['accept-language']);
  const t = texts(lang);
  return renderPage(reply, 404, {
    lang, t, title: t.notFoundTitle, store: null, langHref: otherLang(req.url.split('?')[0]!, lang),
    body: `<main id="main"><h1>${t.notFoundTitle}</h1><p>${t.notFoundHelp}</p></main>`,
  });
}

// The public routes by method and path, with an id of any length: the pages, then those answering the envelope.
const PAGE_ROUTES = [/^GET \/pay\/[^/]+$/, /^GET \/pay\/logos\/[^/]+$/, /^POST \/pay\/[^/]+\/simulate$/, /^(GET|POST) \/l\/[^/]+$/];
const JSON_ROUTES: Array<[RegExp, string]> = [[/^GET \/pay\/[^/]+\/(status|events)$/, 'Checkout'], [/^POST \/l\/[^/]+\/checkouts$/, 'Payment link']];

/**
 * A public route's id the router refused before any route ran (longer than a path parameter may be, or a bad
 * percent-encoding): an id no checkout or link has, so the 404 page (or the envelope's 404 on the JSON routes),
 * as for any unknown id (docs/contract/checkouts.md#payment-page). Other paths: undefined, the API's own answer.
 */
export function publicRoutingError(req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const route = `${req.method} ${req.url.split('?')[0]}`;
  if (PAGE_ROUTES.some((r) => r.test(route))) return notFoundPage(req, reply);
  const json = JSON_ROUTES.find(([r]) => r.test(route));
  return json && reply.code(404).send(errorBody(notFound(json[1])));
}

const statusBody = (row: PayStatusRow) => ({ status: row.status, paidAt: row.paid_at?.toISOString() ?? null, expiresAt: row.expires_at.toISOString() });

/**
 * The public pages (docs/contract/checkouts.md#payment-page, docs/contract/checkouts.md#link-page): no credentials,
 * every input hostile. Ids are checked for their shape before any lookup; another merchant's data is never reachable
 * because a page knows nothing but the id in its path.
 */
export function publicPageRoutes(rt: Runtime) {
  return async (app: FastifyInstance) => {
    // migrations/0020_checkouts.sql notifies `checkout_status` with the checkout id when its charge's status changes.
    const feed = new ListenFeed(rt.pool, 'checkout_status');
    const streams = new Set<() => void>();
    const endStreams = () => { for (const end of streams) end(); };
    // A stream lasts minutes: draining ends it at once, and the page's EventSource reconnects (`retry`) to a
    // process that is not stopping (docs/contract/running.md#draining).
    app.drain.onDrain(endStreams);
    app.addHook('onClose', async () => {
      endStreams();
      await feed.close();
    });
    // The link page's form: small, flat, text only.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    const assets = { 'pages.css': asset('pages.css', 'text/css; charset=utf-8'), 'pages.js': asset('pages.js', 'text/javascript; charset=utf-8') };
    app.get('/pay/assets/:file', { schema: { hide: true } }, async (req, reply) => {
      const file = assets[(req.params as { file: string }).file as keyof typeof assets];
      if (!file) return notFoundPage(req, reply);
      reply.header('cache-control', 'public, max-age=300').header('etag', file.etag).header('x-content-type-options', 'nosniff');
      if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
      return reply.type(file.type).send(file.body);
    });

    app.get('/pay/logos/:id', { schema: { tags, security, summary: 'A store logo (branding), served by Pixgate', params: IdParams } }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      const logo = LOGO_ID.test(id) ? await selectLogo(rt.pool, id) : undefined;
      if (!logo) return notFoundPage(req, reply);
      // A logo id names one image for ever (a new upload takes a new id).
      return reply.type(logo.logo_type).header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff').header('content-security-policy', "default-src 'none'").send(logo.logo);
    });

    const messagePage = (reply: FastifyReply, status: number, lang: Lang, store: Store | null, title: string, text: string, path: string) =>
      renderPage(reply, status, {
        lang, t: texts(lang), title, store, langHref: otherLang(path, lang),
        body: `<main id="main"><h1>${title}</h1><p role="status">${text}</p></main>`,
      });

    app.get('/pay/:id', { schema: { tags, security, summary: 'The payment page of a checkout (HTML)', params: IdParams, querystring: LangQuery } }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      const k = CHECKOUT_ID.test(id) ? await selectPayPage(rt.pool, id) : undefined;
      if (!k) return notFoundPage(req, reply);
      const lang = pickLang(req.query, req.headers['accept-language']);
      const t = texts(lang);
      const self = withLang(`/pay/${id}`, lang);
      return renderPage(reply, 200, {
        lang, t, title: t.payTitle, store: storeOf(k), head: payPageHead(k), langHref: otherLang(`/pay/${id}`, lang),
        body: payPageMain(k, t, lang, { simulator: rt.provider.simulatePayment !== undefined, self }),
      });
    });

    app.get('/pay/:id/status', {
      schema: { tags, security, summary: 'A checkout\'s status, for its payment page', params: IdParams, response: { 200: Envelope(StatusSchema), ...errorResponses } },
    }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      const row = CHECKOUT_ID.test(id) ? await selectPayStatus(rt.pool, id) : undefined;
      if (!row) throw new AppError('NOT_FOUND', 'Checkout not found');
      reply.header('cache-control', 'no-store');
      return ok(statusBody(row));
    });

    // Server-sent events: the page's status as soon as it changes (docs/checkouts.md#live-status).
    app.get('/pay/:id/events', { schema: { tags, security, summary: 'Server-sent events of a checkout\'s status (text/event-stream)', params: IdParams } }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      if (!CHECKOUT_ID.test(id)) throw new AppError('NOT_FOUND', 'Checkout not found');
      let ended = false;
      let unsubscribe = () => {};
      const timers: NodeJS.Timeout[] = [];
      const end = () => {
        if (ended) return;
        ended = true;
        timers.forEach((tm) => clearTimeout(tm));
        unsubscribe();
        streams.delete(end);
        reply.raw.end();
      };
      let reading: Promise<void> | null = null;
      let again = false;
      const look = async (): Promise<void> => {
        if (reading) { again = true; return; }
        reading = (async () => {
          do {
            again = false;
            const row = await selectPayStatus(rt.pool, id).catch(() => undefined);
            if (ended) return;
            if (!row) return end();
            if (row.status !== 'PENDING') {
              reply.raw.write(`data: ${JSON.stringify(statusBody(row))}\n\n`);
              return end();
            }
          } while (again);
        })().finally(() => { reading = null; });
        await reading;
      };
      // Subscribe before the first read: a payment committed in between is then seen by one or the other.
      unsubscribe = await feed.subscribe(id, () => void look());
      const first = await selectPayStatus(rt.pool, id);
      if (!first) {
        unsubscribe();
        throw new AppError('NOT_FOUND', 'Checkout not found');
      }
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no',
      });
      streams.add(end);
      reply.raw.write(`retry: 3000\ndata: ${JSON.stringify(statusBody(first))}\n\n`);
      req.raw.on('close', end);
      if (first.status !== 'PENDING') return end();
      const untilExpiry = first.expires_at.getTime() - Date.now() + 50;
      if (untilExpiry < STREAM_MAX_MS) timers.push(setTimeout(() => void look(), untilExpiry));
      timers.push(setTimeout(end, STREAM_MAX_MS), setInterval(() => reply.raw.write(': ping\n\n'), HEARTBEAT_MS));
    });

    // Only a provider that can pay its own charges (the simulator) has the test button and its route.
    const simulate = rt.provider.simulatePayment?.bind(rt.provider);
    if (simulate) {
      app.post('/pay/:id/simulate', { schema: { tags, security, summary: 'Simulator only: pay the checkout as a payer would', params: IdParams, querystring: LangQuery } }, async (req, reply) => {
        const id = (req.params as { id: string }).id;
        const row = CHECKOUT_ID.test(id) ? await selectPayStatus(rt.pool, id) : undefined;
        if (!row) return notFoundPage(req, reply);
        await simulate(row.charge_id).catch((err: unknown) => {
          if (!(err instanceof AppError && err.code === 'INVALID_STATE')) throw err; // paid or expired meanwhile: the page shows it
        });
        return reply.redirect(withLang(`/pay/${id}`, pickLang(req.query, req.headers['accept-language'])), 303);
      });
    }

    const linkPage = async (req: FastifyRequest, reply: FastifyReply, status: number, typed: Typed, problems: PayerErrors['problems']) => {
      const id = (req.params as { id: string }).id;
      const found = LINK_ID.test(id) ? await findLinkWithMerchant(rt, id) : undefined;
      if (!found || found.merchant.suspended) return notFoundPage(req, reply);
      const brand = (await selectBrand(rt.pool, found.merchant.id))!;
      const lang = pickLang(req.query, req.headers['accept-language']);
      const unavailable = await unavailability(rt.pool, found.link);
      return renderLinkPage(reply, status, { link: found.link, t: texts(lang), lang, typed, problems, unavailable, store: storeOf(brand) });
    };

    app.get('/l/:id', { schema: { tags, security, summary: 'The page of a payment link (HTML)', params: IdParams, querystring: LangQuery } },
      async (req, reply) => linkPage(req, reply, 200, {}, {}));

    app.post('/l/:id', {
      schema: { tags, security, summary: 'The link page\'s form: starts a checkout and redirects (303) to its payment page', params: IdParams, querystring: LangQuery },
    }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      if (!LINK_ID.test(id)) return notFoundPage(req, reply);
      const form = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const typed: Typed = {};
      for (const f of ['amount', 'name', 'email', 'taxId', 'phone'] as const) if (typeof form[f] === 'string') typed[f] = (form[f] as string).slice(0, 300);
      const lang = pickLang(req.query, req.headers['accept-language']);
      const amount = typed.amount === undefined || typed.amount.trim() === '' ? undefined : parseReais(typed.amount);
      try {
        const checkout = await startLinkCheckout(rt, id, { ...typed, amount }, req.ip);
        return reply.redirect(withLang(`/pay/${checkout.id}`, lang), 303);
      } catch (err) {
        if (err instanceof PayerErrors) return linkPage(req, reply, 400, typed, err.problems);
        if (err instanceof LinkUnavailable) return linkPage(req, reply, 400, typed, {});
        if (err instanceof AppError && err.code === 'NOT_FOUND') return notFoundPage(req, reply);
        const t = texts(lang);
        if (err instanceof LinkRateLimited) {
          reply.header('retry-after', String(err.retryAfter));
          return messagePage(reply, 429, lang, null, t.tooMany, t.tooManyHelp(err.retryAfter), `/l/${id}`);
        }
        if (err instanceof AppError && err.statusCode < 500 && err.code !== 'VALIDATION_ERROR') {
          return messagePage(reply, err.statusCode, lang, null, t.unavailableTitle, t.errorHelp, `/l/${id}`);
        }
        if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return messagePage(reply, 400, lang, null, t.unavailableTitle, t.errorHelp, `/l/${id}`);
        req.log.error({ err }, 'link checkout failed');
        return messagePage(reply, 503, lang, null, t.unavailableTitle, t.errorHelp, `/l/${id}`);
      }
    });

    app.post('/l/:id/checkouts', {
      schema: {
        tags, security, summary: 'Starts a checkout from a payment link (JSON)', params: IdParams, body: LinkCheckoutBody,
        response: { 201: Envelope(PublicCheckoutSchema), ...errorResponses },
      },
    }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      if (!LINK_ID.test(id)) throw new AppError('NOT_FOUND', 'Payment link not found');
      try {
        const k = await startLinkCheckout(rt, id, req.body as Static<typeof LinkCheckoutBody>, req.ip);
        return reply.code(201).send(ok({ id: k.id, url: k.url, status: k.status, amount: k.amount, brCode: k.brCode, expiresAt: k.expiresAt }));
      } catch (err) {
        if (err instanceof LinkRateLimited) reply.header('retry-after', String(err.retryAfter));
        throw err;
      }
    });
  };
}
