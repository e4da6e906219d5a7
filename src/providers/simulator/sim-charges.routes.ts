import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { ChargeCheckSchema, CivilDateText } from '../../charges/charge.schemas.js';
import { withImage } from '../../charges/charge.view.js';
import { DisputeResolveBody, DisputeSchema } from '../../disputes/dispute.schemas.js';
import { openDispute, resolveDispute } from '../../disputes/dispute.service.js';
import { Envelope, errorResponses, Nullable, ok } from '../../platform/http/envelope.js';
import { settleRefund } from '../../refunds/refund-settlement.service.js';
import type { Runtime } from '../../runtime.js';
import { simulatePayment } from './sim-charges.provider.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
// Optional bodies: a POST without one arrives as null.
const PayBody = Nullable(Type.Object({
  payer: Type.Optional(Type.Object({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
    taxId: Type.Optional(Type.String({ minLength: 1, maxLength: 18 })),
  })),
  date: Type.Optional(CivilDateText),
}));
const FailBody = Nullable(Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }));
const tags = ['simulator'];
const security = [{ adminToken: [] }];
const ChargeAnswer = { 200: Envelope(ChargeCheckSchema), ...errorResponses };
const DisputeAnswer = { 200: Envelope(DisputeSchema), ...errorResponses };

/** Simulator controls for charges, refunds and disputes (docs/contract/operator.md#simulator), under /admin/simulator. */
export function simulatorChargeRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/charges/:id/pay', { schema: { tags, security, params: IdParams, body: PayBody, response: ChargeAnswer } }, async (req) => {
      const body = req.body;
      return ok(withImage(await simulatePayment(rt, req.params.id, { payer: body?.payer, date: body?.date })));
    });

    app.post('/charges/:id/dispute', { schema: { tags, security, params: IdParams, response: DisputeAnswer } }, async (req) =>
      ok(await openDispute(rt, { chargeId: req.params.id })));

    app.post('/disputes/:id/resolve', {
      schema: { tags, security, params: IdParams, body: DisputeResolveBody, response: DisputeAnswer },
    }, async (req) => ok(await resolveDispute(rt, req.params.id, req.body.outcome)));

    app.post('/refunds/:id/complete', { schema: { tags, security, params: IdParams, response: ChargeAnswer } }, async (req) =>
      ok(withImage(await settleRefund(rt, req.params.id, { status: 'COMPLETED' }, { onlyPending: true }))));

    app.post('/refunds/:id/fail', { schema: { tags, security, params: IdParams, body: FailBody, response: ChargeAnswer } }, async (req) => {
      const reason = req.body?.reason ?? null;
      return ok(withImage(await settleRefund(rt, req.params.id, { status: 'FAILED', reason }, { onlyPending: true })));
    });
  };
}
