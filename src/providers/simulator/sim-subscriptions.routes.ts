import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { saoPauloDate } from '../../calendar/index.js';
import { ChargeCheckSchema } from '../../charges/charge.schemas.js';
import { loadCharge, withImage } from '../../charges/charge.view.js';
import { newEndToEndId } from '../../pix/index.js';
import { withTransaction } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { Envelope, errorResponses, ok, StringEnum } from '../../platform/http/envelope.js';
import type { Runtime } from '../../runtime.js';
import { issueNextCycleNow } from '../../subscriptions/subscription-cycle.service.js';
import { recordDebit, settleSubscriptionCharge } from '../../subscriptions/subscription-debit.service.js';
import {
  assertAwaitingAuthorization, authorizeSubscription, cancelByPayer, lockForProvider, rejectSubscription,
} from '../../subscriptions/subscription-state.service.js';
import { SubscriptionSchema, type Subscription } from '../../subscriptions/subscription.schemas.js';
import { loadSubscription } from '../../subscriptions/subscription.view.js';
import { SIM_ISPB, simulatePayment } from './sim-charges.provider.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/** What the simulated payer's bank can make of a debit attempt. */
const DEBIT_OUTCOMES = ['PAID', 'INSUFFICIENT_FUNDS'] as const;
const DebitBody = Type.Object({ outcome: StringEnum(DEBIT_OUTCOMES) });
const tags = ['simulator'];
const security = [{ adminToken: [] }];
const SubscriptionAnswer = { 200: Envelope(SubscriptionSchema), ...errorResponses };
const ChargeAnswer = { 200: Envelope(ChargeCheckSchema), ...errorResponses };

/**
 * Journey 3: the payer pays the composite code — its first charge, through the ordinary payment path — which authorizes
 * the subscription; activated here at once as well as by the payment's own job, so the answer shows it ACTIVE.
 */
async function authorizeWithPayment(rt: Runtime, firstChargeId: string): Promise<void> {
  await simulatePayment(rt, firstChargeId);
  await settleSubscriptionCharge(rt, firstChargeId);
}

/** The simulator playing the payer's bank for Pix Automático (docs/contract/subscriptions.md#simulator), under /admin/simulator. */
export function simulatorSubscriptionRoutes(rt: Runtime) {
  const answer = async (id: string): Promise<Subscription> => (await loadSubscription(rt.pool, id, null, { withCode: true }))!.subscription;
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/subscriptions/:id/authorize', { schema: { tags, security, params: IdParams, response: SubscriptionAnswer } }, async (req) => {
      const { id } = req.params;
      const sub = await withTransaction(rt.pool, async (tx) => {
        const locked = await lockForProvider(tx, id);
        assertAwaitingAuthorization(locked);
        return locked;
      });
      if (sub.first_charge_id) await authorizeWithPayment(rt, sub.first_charge_id);
      else await authorizeSubscription(rt, id);
      return ok(await answer(id));
    });

    app.post('/subscriptions/:id/reject', { schema: { tags, security, params: IdParams, response: SubscriptionAnswer } }, async (req) =>
      ok(await rejectSubscription(rt, req.params.id).then(() => answer(req.params.id))));

    app.post('/subscriptions/:id/cancel', { schema: { tags, security, params: IdParams, response: SubscriptionAnswer } }, async (req) =>
      ok(await cancelByPayer(rt, req.params.id).then(() => answer(req.params.id))));

    app.post('/subscriptions/:id/next-cycle', { schema: { tags, security, params: IdParams, response: ChargeAnswer } }, async (req) =>
      ok(await issueNextCycleNow(rt, req.params.id)));

    app.post('/charges/:id/debit', { schema: { tags, security, params: IdParams, body: DebitBody, response: ChargeAnswer } }, async (req) => {
      const charge = await loadCharge(rt.pool, req.params.id);
      if (!charge) throw notFound('Charge');
      if (charge.subscriptionId === null || charge.dueDate === null) throw new AppError('INVALID_STATE', 'Charge is not a subscription cycle\'s; only those are debited');
      const now = new Date();
      const attempt = { date: saoPauloDate(now), outcome: req.body.outcome, endToEndId: newEndToEndId(SIM_ISPB, now) };
      return ok(withImage(await recordDebit(rt, charge.id, attempt, { onlyPending: true })));
    });
  };
}
