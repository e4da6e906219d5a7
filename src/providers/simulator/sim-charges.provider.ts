import type { TaskList } from 'graphile-worker';
import { receivePayment } from '../../charges/charge-payment.service.js';
import type { Charge } from '../../charges/charge.schemas.js';
import { buildStaticBrCode, newEndToEndId, newTxid } from '../../pix/index.js';
import { enqueue } from '../../platform/jobs.js';
import { settleRefund } from '../../refunds/refund-settlement.service.js';
import type { Runtime } from '../../runtime.js';
import type { DevolucaoState, PixProvider, RefundRequest } from '../port/provider.port.js';
import { issueCobv } from './sim-cobv.provider.js';
import type { TransactionHook } from '../../platform/db.js';

/** The simulated network's one institution (ISPB), in the end-to-end ids of simulated payments and payouts. */
export const SIM_ISPB = '99999999';
const REFUND_SETTLE_TASK = 'sim:refund:settle';

/**
 * The simulated network keeps no record of its devoluções: every one it is asked for completes after
 * SIM_REFUND_DELAY_MS unless driven first. Asked about one or asked for it, it (re)schedules that completion
 * — one job per refund, its time kept — and reports it in processing, so a refund whose job was lost
 * completes when the core asks again.
 */
const simRefund = (rt: Runtime) => async (input: RefundRequest): Promise<DevolucaoState> => {
  await enqueue(rt.pool, REFUND_SETTLE_TASK, { refundId: input.refundId }, {
    runAt: new Date(Date.now() + rt.config.simRefundDelayMs), jobKey: `${REFUND_SETTLE_TASK}:${input.refundId}`, jobKeyMode: 'preserve_run_at',
  });
  return { status: 'PROCESSING' };
};

export function simulatedCharges(rt: Runtime): Pick<PixProvider, 'createCharge' | 'getRefund' | 'sendRefund'> {
  return {
    // A static BR Code under BACEN's rules (docs/contract/charges.md#br-code), with a fresh 25-character txid;
    // a due-date charge is a cobv, with a dynamic code.
    createCharge: async (input) => {
      if (input.dueDate) return issueCobv(rt, input);
      const txid = newTxid();
      const brCode = buildStaticBrCode({
        pixKey: input.merchant.pixKey, amount: input.amount, merchantName: input.merchant.name,
        merchantCity: input.merchant.city, txid, description: input.description,
      });
      return { txid, brCode };
    },
    getRefund: simRefund(rt),
    sendRefund: simRefund(rt),
  };
}

export function simulatorChargeTasks(rt: Runtime): TaskList {
  return {
    [REFUND_SETTLE_TASK]: async (payload) => {
      await settleRefund(rt, (payload as { refundId: string }).refundId, { status: 'COMPLETED' });
    },
  };
}

/** What the simulated payer sends with a payment: who pays, and on which day (a due-date charge only). */
export interface SimulatedPayment {
  payer?: { name?: string; taxId?: string };
  /** `YYYY-MM-DD` in São Paulo; default today (docs/contract/due-date-charges.md#simulator). */
  date?: string;
  hook?: TransactionHook<Charge>;
  /** Scopes the payment on a merchant's route: another merchant's charge is NOT_FOUND. */
  merchantId?: string;
}

/**
 * A payer pays the charge's code: the notification a PSP would send, through the same core function, by the
 * charge's id (no read of it first). It pays what the charge asks — a due-date charge, the amount due on `date`,
 * as the payer's bank reads it from the payload (the core computes it from the charge it reads).
 */
export async function simulatePayment(rt: Runtime, chargeId: string, o: SimulatedPayment = {}): Promise<Charge> {
  const now = new Date();
  return receivePayment(rt, {
    charge: { id: chargeId, merchantId: o.merchantId ?? null }, endToEndId: newEndToEndId(SIM_ISPB, now), paidAt: now, payer: o.payer ?? null,
    ...(o.date !== undefined && { day: o.date }),
  }, { onlyPending: true, hook: o.hook });
}
