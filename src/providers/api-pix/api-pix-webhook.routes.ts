import { createHash, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { Envelope, errorResponses, Nullable, ok } from '../../platform/http/envelope.js';
import type { Runtime } from '../../runtime.js';
import { receivePixNotification, type PixEntry } from './api-pix-webhook.js';

// API Pix `Pix` and `Devolucao`, as far as we read them; other fields a PSP sends are accepted.
const Devolucao = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 35 }),
  status: Type.String({ maxLength: 40 }),
  motivo: Type.Optional(Type.String({ maxLength: 140 })),
});
const Pix = Type.Object({
  endToEndId: Type.String({ pattern: '^[a-zA-Z0-9]{32}$' }),
  txid: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' })),
  valor: Type.String({ pattern: '^\\d{1,10}\\.\\d{2}$' }),
  horario: Type.String({ format: 'date-time' }),
  infoPagador: Type.Optional(Type.String({ maxLength: 140 })),
  pagador: Type.Optional(Type.Object({
    nome: Type.Optional(Type.String({ maxLength: 200 })),
    cpf: Type.Optional(Type.String({ maxLength: 11 })),
    cnpj: Type.Optional(Type.String({ maxLength: 14 })),
  })),
  devolucoes: Type.Optional(Type.Union([Type.Array(Devolucao, { maxItems: 100 }), Devolucao])),
});
// `pix` may be absent: PSPs check a webhook URL at registration with a body of their own.
const Notification = Nullable(Type.Object({ pix: Type.Optional(Type.Array(Pix, { maxItems: 1000 })) }));
const Received = Envelope(Type.Object({ received: Type.Integer() }));
const TokenParams = Type.Object({ token: Type.String({ maxLength: 256 }) });

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The token may sit in the path: logged request URLs never show it. */
const logSerializers = {
  req: (req: FastifyRequest) => ({ method: req.method, url: '/providers/api-pix/webhook/[redacted]/pix', remoteAddress: req.ip }),
};

/**
 * `POST {registered URL}/pix`: BACEN's webhook appends `/pix` to the URL registered at the PSP
 * (`PUT /webhook/{chave}`). The PSP proves itself with API_PIX_WEBHOOK_TOKEN, either in the path
 * (register `https://<host>/providers/api-pix/webhook/<token>`) or in the X-Webhook-Token header set
 * by an mTLS-terminating edge (register `https://<host>/providers/api-pix/webhook`). Outside the
 * merchant and operator scopes; registered only while api-pix is the provider.
 */
export function apiPixWebhookRoutes(rt: Runtime) {
  const expected = digest(rt.config.apiPix!.webhookToken);
  const authorized = (given: unknown) => typeof given === 'string' && timingSafeEqual(digest(given), expected);
  return async (app: FastifyInstance) => {
    // Before the body is read or validated: a stranger learns nothing but 401.
    app.addHook('onRequest', async (req) => {
      const token = (req.params as { token?: string }).token ?? req.headers['x-webhook-token'];
      if (!authorized(token)) throw new AppError('UNAUTHORIZED', 'Invalid webhook token');
    });
    const schema = { hide: true, body: Notification, response: { 200: Received, ...errorResponses } };
    const handler = async (req: FastifyRequest) =>
      ok({ received: await receivePixNotification(rt, req.body as Static<typeof Notification> as { pix?: PixEntry[] } | null, req.log) });
    app.post('/webhook/pix', { schema, logSerializers }, handler);
    app.post('/webhook/:token/pix', { schema: { ...schema, params: TokenParams }, logSerializers }, handler);
  };
}
