import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { Envelope, errorResponses, Nullable, ok } from '../../platform/http/envelope.js';
import { notFoundHandler } from '../../platform/http/error-handler.js';
import type { Runtime } from '../../runtime.js';
import type { ApiPixClient } from './api-pix.client.js';
import { receivePixNotification, type PixEntry } from './api-pix-webhook.service.js';
import { receiveCobrNotification, receiveRecNotification } from './api-pix-recurrence.service.js';

// API Pix `Pix` and `Devolucao`, as far as the hint is read (which PIX, which devolução); other fields
// a PSP sends are accepted and ignored, since the PSP's own answer is what counts.
const Devolucao = Type.Object({ id: Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' }) });
const Pix = Type.Object({
  endToEndId: Type.String({ pattern: '^[a-zA-Z0-9]{32}$' }),
  txid: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' })),
  valor: Type.String({ pattern: '^\\d{1,10}\\.\\d{2}$' }),
  horario: Type.String({ format: 'date-time' }),
  devolucoes: Type.Optional(Type.Union([Type.Array(Devolucao, { maxItems: 100 }), Devolucao])),
});
// Pix Automático's notifications (webhookrec, webhookcobr): which recurrence, which cycle charge.
const RecHint = Type.Object({ idRec: Type.String({ pattern: '^[a-zA-Z0-9]{29}$' }) });
const CobrHint = Type.Object({ txid: Type.String({ pattern: '^[a-zA-Z0-9]{26,35}$' }) });
// The array of each kind may be absent: PSPs check a webhook URL at registration with a body of their own.
const Notification = Nullable(Type.Object({
  pix: Type.Optional(Type.Array(Pix, { maxItems: 1000 })),
  recs: Type.Optional(Type.Array(RecHint, { maxItems: 1000 })),
  cobsr: Type.Optional(Type.Array(CobrHint, { maxItems: 1000 })),
}));
const Received = Envelope(Type.Object({ received: Type.Integer() }));

/**
 * `…/webhook/<token>/pix` (and `/rec`, `/cobr`). A wildcard, not a `:token` parameter: tokens may be up to 256
 * characters (docs/contract/psp.md#psp-notifications) and every other route keeps the 100-character parameter limit.
 */
const KINDS = ['pix', 'rec', 'cobr'] as const;
type Kind = (typeof KINDS)[number];
const TOKEN_IN_PATH = new RegExp(`^([^/]+)/(${KINDS.join('|')})$`);
const KIND_AT_END = new RegExp(`/(${KINDS.join('|')})$`);

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The token may sit in the path: logged request URLs never show it. */
const logSerializers = {
  req: (req: FastifyRequest) => ({
    method: req.method, url: `/providers/api-pix/webhook/[redacted]/${KIND_AT_END.exec(req.url.split('?')[0]!)?.[1] ?? ''}`, remoteAddress: req.ip,
  }),
};

/**
 * `POST {registered URL}/pix`: BACEN's webhook appends `/pix` to the URL registered at the PSP
 * (`PUT /webhook/{chave}`), and Pix Automático's `/rec` (`PUT /webhookrec`) and `/cobr` (`PUT /webhookcobr`). The caller presents API_PIX_WEBHOOK_TOKEN, either in the path (register
 * `https://<host>/providers/api-pix/webhook/<token>`) or in the X-Webhook-Token header set by an
 * mTLS-terminating edge (register `https://<host>/providers/api-pix/webhook`). The token only keeps
 * strangers from making us query the PSP: nothing is believed before the PSP confirms it
 * (api-pix-webhook.service.ts). Outside the merchant and operator scopes; registered only under api-pix.
 */
export function apiPixWebhookRoutes(rt: Runtime, api: ApiPixClient) {
  const expected = digest(rt.config.apiPix!.webhookToken);
  const authorized = (given: unknown) => typeof given === 'string' && timingSafeEqual(digest(given), expected);
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // Before the body is read or validated: a stranger learns nothing but 401.
    app.addHook('onRequest', async (req, reply) => {
      const wildcard = (req.params as { '*'?: string })['*'];
      let token: unknown = req.headers['x-webhook-token'];
      if (wildcard !== undefined) {
        const m = TOKEN_IN_PATH.exec(wildcard);
        if (!m) return notFoundHandler(req, reply);
        token = m[1];
      }
      if (!authorized(token)) throw new AppError('UNAUTHORIZED', 'Invalid webhook token');
    });
    const schema = { hide: true, body: Notification, response: { 200: Received, ...errorResponses } };
    const receive = (kind: Kind, body: Static<typeof Notification>, log: FastifyRequest['log']): Promise<number> =>
      kind === 'pix' ? receivePixNotification(rt, api, body as { pix?: PixEntry[] } | null, log)
      : kind === 'rec' ? receiveRecNotification(rt, api, body, log)
      : receiveCobrNotification(rt, api, body, log);
    for (const kind of KINDS) {
      app.post(`/webhook/${kind}`, { schema, logSerializers }, async (req) => ok({ received: await receive(kind, req.body, req.log) }));
    }
    app.post('/webhook/*', { schema, logSerializers }, async (req) => {
      const kind = TOKEN_IN_PATH.exec((req.params as { '*': string })['*'])![2] as Kind;
      return ok({ received: await receive(kind, req.body, req.log) });
    });
  };
}
