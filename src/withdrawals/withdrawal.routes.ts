import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import {
  CreatedWithdrawal, CreateWithdrawalBody, ListWithdrawalsQuery, Withdrawal, WithdrawalIdParams, WithdrawalListItem, WithdrawalQuote,
  WithdrawalQuoteQuery,
} from './withdrawal.schemas.js';
import { createWithdrawal, getWithdrawal, listWithdrawals, quoteWithdrawal } from './withdrawal.service.js';
import { toListItemView, toWithdrawalView } from './withdrawal.view.js';

const tags = ['withdrawals'];

/** docs/contract/withdrawals.md#withdrawals: payouts of the merchant's available balance to a PIX key. */
export function withdrawalRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/withdrawals', {
      onRequest: requirePermission('money'),
      schema: { tags, body: CreateWithdrawalBody, response: { 201: Envelope(CreatedWithdrawal), ...errorResponses } },
      config: { successStatus: 201 },
    }, async (req, reply) => {
      const body = req.body;
      return reply.code(201).send(ok(await createWithdrawal(rt, req.auth!.merchant, body, req.idempotency)));
    });

    app.get('/withdrawals', {
      schema: { tags, querystring: ListWithdrawalsQuery, response: { 200: ListEnvelope(WithdrawalListItem), ...errorResponses } },
    }, async (req) => {
      const page = await listWithdrawals(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items.map(toListItemView)), pagination: page.pagination };
    });

    app.get('/withdrawals/quote', {
      schema: { tags, querystring: WithdrawalQuoteQuery, response: { 200: Envelope(WithdrawalQuote), ...errorResponses } },
    }, async (req) => ok(await quoteWithdrawal(rt, req.auth!.merchant, req.query.amount)));

    app.get('/withdrawals/:id', {
      schema: { tags, params: WithdrawalIdParams, response: { 200: Envelope(Withdrawal), ...errorResponses } },
    }, async (req) => {
      const { id } = req.params;
      return ok(toWithdrawalView(await getWithdrawal(rt, req.auth!.merchant.id, id)));
    });
  };
}
