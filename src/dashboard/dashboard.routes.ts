import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFoundHandler } from '../platform/http/error-handler.js';
import { WEB_DIST } from './dashboard.build.js';

const hide = { schema: { hide: true } };
// Hashed file names change with their content, so they may be cached for a year; index.html never is.
const ASSET = /^assets\/[\w.-]+$/;
// The dashboard talks only to its own origin; Mantine sets inline styles, QR images are data: URLs.
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function sendIndex(reply: FastifyReply, dist: string) {
  if (!existsSync(join(dist, 'index.html'))) {
    return reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store')
      .send('The dashboard is not built: run `npm run build:web` (npm start builds it when needed).');
  }
  return reply.header('cache-control', 'no-cache').header('content-security-policy', CSP).header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin').sendFile('index.html', dist, { cacheControl: false });
}

/**
 * The dashboard single-page app (web/, docs/contract/dashboard.md#dashboard) at /dashboard: a client of the public API like
 * any other. Every client route (/dashboard/charges/chg_..., /dashboard/invite/<token>) loads index.html;
 * these routes are outside the OpenAPI document and outside the merchant scope (no API auth).
 */
export function dashboardRoutes(dist = WEB_DIST) {
  return async (app: FastifyInstance) => {
    await app.register(fastifyStatic, { root: dist, serve: false });
    app.get('/', hide, async (_req, reply) => reply.redirect('/dashboard', 302));
    app.get('/dashboard', hide, async (_req, reply) => sendIndex(reply, dist));
    // Registered beside the wildcard: its empty `*` would otherwise read as a path naming nothing (404).
    app.get('/dashboard/', hide, async (_req, reply) => sendIndex(reply, dist));
    app.get<{ Params: { '*': string } }>('/dashboard/*', hide, async (req, reply) => {
      const path = req.params['*'];
      if (ASSET.test(path)) {
        if (!existsSync(join(dist, path))) return notFoundHandler(req, reply);
        return reply.sendFile(path, dist, { cacheControl: true, maxAge: '365d', immutable: true });
      }
      // A missing file with an extension is a 404, not the app (a stale tab asking for an old chunk).
      if (/\.[a-z0-9]+$/i.test(path) && !path.startsWith('invite/')) return notFoundHandler(req, reply);
      return sendIndex(reply, dist);
    });
  };
}
