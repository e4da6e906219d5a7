import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { cobvPayload } from './sim-cobv.provider.js';
import { idOfToken } from './sim-location.crypto.js';
import type { PayloadSigner } from './sim-payload.crypto.js';
import { recPayloadOf, subscriptionAt } from './sim-subscriptions.provider.js';

/** An API Pix problem (RFC 7807), as a PSP answers its payer-side locations. */
const problem = (status: number, type: string, title: string) => ({ type: `https://pix.bcb.gov.br/api/v2/error/${type}`, title, status });

/** A query value as the payer's bank sent it once; a repeated parameter is not one value (undefined stays absent). */
function single(query: unknown, name: string): string | undefined | null {
  const value = (query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * What a payer's bank fetches from the simulated PSP (docs/contract/due-date-charges.md#payer-payload,
 * docs/contract/subscriptions.md#recurrence-payload): the payload at a due-date charge's or a recurrence's
 * location, a JWS (`application/jose`), and the key set that signs it. Open to
 * anyone, as BACEN's locations are (the token in the path is the capability, never logged); answers in BACEN's
 * terms — the JWS, or a `Problema` (`application/problem+json`) — not Pixgate's envelope, and left out of
 * Pixgate's OpenAPI document, since they are the PSP's API, not the merchant's.
 */
export function simulatorPayerRoutes(rt: Runtime, signer: PayloadSigner) {
  return async (app: FastifyInstance) => {
    app.get('/pix/v2/jwks', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('application/json').header('cache-control', 'public, max-age=300').send(JSON.stringify(await signer.jwks())));

    app.get<{ Params: { token: string } }>('/pix/v2/cobv/:token', { schema: { hide: true } }, async (req, reply) => {
      const DPP = single(req.query, 'DPP');
      const codMun = single(req.query, 'codMun');
      const answer = await cobvPayload(rt, signer, req.params.token, {
        // A repeated parameter reads as a value no rule accepts.
        DPP: DPP === null ? '' : DPP, codMun: codMun === null ? '' : codMun,
      });
      if ('problem' in answer) return reply.code(answer.problem.status).type('application/problem+json').send(JSON.stringify(answer.problem));
      return reply.type('application/jose').header('cache-control', 'no-store').send(answer.jws);
    });

    app.get<{ Params: { token: string } }>('/pix/v2/rec/:token', { schema: { hide: true } }, async (req, reply) => {
      const id = idOfToken(rt, 'sub', req.params.token);
      const sub = id === null ? undefined : await subscriptionAt(rt, id);
      const refuse = (status: number, type: string, title: string) =>
        reply.code(status).type('application/problem+json').send(JSON.stringify(problem(status, type, title)));
      if (!sub || sub.br_code === null) return refuse(404, 'RecPayloadNaoEncontrado', 'Recorrencia nao encontrada');
      // BACEN lets a PSP refuse a recurrence that is no longer open (expired, rejected, cancelled): this one does.
      if (sub.status !== 'CREATED' && sub.status !== 'ACTIVE') return refuse(400, 'RecPayloadOperacaoInvalida', `Recorrencia ${sub.status}`);
      return reply.type('application/jose').header('cache-control', 'no-store').send(await signer.sign(await recPayloadOf(rt, sub)));
    });
  };
}
