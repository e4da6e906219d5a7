import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, errorResponses, Nullable, ok } from '../../platform/http/envelope.js';
import type { Runtime } from '../../runtime.js';
import { Withdrawal, WithdrawalIdParams } from '../../withdrawals/withdrawal.schemas.js';
import { toWithdrawalView } from '../../withdrawals/withdrawal.view.js';
import { driveSimPayout, SIM_FAIL_REASON } from './sim-payouts.provider.js';

// The body is optional: a POST without one arrives as null here.
const FailBody = Nullable(Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }));
const tags = ['simulator'];
const security = [{ adminToken: [] }];
const response = { 200: Envelope(Withdrawal), ...errorResponses };

/** docs/contract/operator.md#simulator: drive a payout's result now instead of waiting for SIM_PAYOUT_DELAY_MS. */
export function simulatorPayoutRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/withdrawals/:id/complete', { schema: { tags, security, params: WithdrawalIdParams, response } }, async (req) => {
      const { id } = req.params;
      return ok(toWithdrawalView(await driveSimPayout(rt, id, { fail: false })));
    });
    app.post('/withdrawals/:id/fail', { schema: { tags, security, params: WithdrawalIdParams, body: FailBody, response } }, async (req) => {
      const { id } = req.params;
      const reason = req.body?.reason ?? SIM_FAIL_REASON;
      return ok(toWithdrawalView(await driveSimPayout(rt, id, { fail: true, reason })));
    });
  };
}
