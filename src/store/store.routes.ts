import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { getBalance } from '../ledger/ledger.js';
import { BalanceSchema } from '../merchants/merchant.schemas.js';
import { storeName } from '../merchants/merchant.service.js';
import { Envelope, errorResponses, Nullable, ok } from '../platform/http/envelope.js';

const Store = Type.Object({ id: Type.String(), name: Nullable(Type.String()), balance: BalanceSchema });
const tags = ['store'];

/** docs/contract/merchants.md#store: the store is the authenticated merchant; its id is the merchant id. */
export function storeRoutes(pool: pg.Pool) {
  return async (app: FastifyInstance) => {
    app.get('/me/store', { schema: { tags, response: { 200: Envelope(Store), ...errorResponses } } }, async (req) => {
      const merchant = req.auth!.merchant;
      return ok({ id: merchant.id, name: storeName(merchant), balance: await getBalance(pool, merchant.id) });
    });
    app.get('/me/balance', { schema: { tags, response: { 200: Envelope(BalanceSchema), ...errorResponses } } }, async (req) =>
      ok(await getBalance(pool, req.auth!.merchant.id)),
    );
  };
}
