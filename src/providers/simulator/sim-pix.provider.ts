import type { TaskList } from 'graphile-worker';
import { newEndToEndId } from '../../pix/index.js';
import { enqueue } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import { acceptReceivedPix, type ReceivedOutcome } from '../../unmatched/received-pix.service.js';
import { settleUnmatchedRefund } from '../../unmatched/unmatched.service.js';
import type { DevolucaoState, PixProvider, UnmatchedRefundRequest } from '../port/provider.port.js';
import { SIM_ISPB } from './sim-charges.provider.js';

const UNMATCHED_REFUND_SETTLE_TASK = 'sim:unmatched-refund:settle';

export interface SimulatedPix {
  amount: number;
  txid?: string;
  payer?: { name?: string; taxId?: string };
}

/**
 * The simulated network receives a PIX (POST /admin/simulator/pix): it enters the core exactly as a
 * PSP's confirmed PIX does, so a txid of a charge with the same amount pays it (a late one included,
 * docs/contract/charges.md#late-payments), and anything else becomes an unmatched payment.
 */
export function simulateReceivedPix(rt: Runtime, pix: SimulatedPix): Promise<ReceivedOutcome> {
  const now = new Date();
  return acceptReceivedPix(rt, {
    endToEndId: newEndToEndId(SIM_ISPB, now), txid: pix.txid ?? null, amount: pix.amount, receivedAt: now,
    payer: pix.payer ? { name: pix.payer.name ?? null, taxId: pix.payer.taxId ?? null } : null,
  });
}

/** As a charge refund's (sim-charges.provider.ts): asked about or asked for, the devolução completes after SIM_REFUND_DELAY_MS. */
const simUnmatchedRefund = (rt: Runtime) => async ({ devolucaoId }: UnmatchedRefundRequest): Promise<DevolucaoState> => {
  await enqueue(rt.pool, UNMATCHED_REFUND_SETTLE_TASK, { devolucaoId }, {
    runAt: new Date(Date.now() + rt.config.simRefundDelayMs), jobKey: `${UNMATCHED_REFUND_SETTLE_TASK}:${devolucaoId}`,
    jobKeyMode: 'preserve_run_at',
  });
  return { status: 'PROCESSING' };
};

export function simulatedUnmatched(rt: Runtime): Pick<PixProvider, 'getUnmatchedRefund' | 'sendUnmatchedRefund'> {
  return { getUnmatchedRefund: simUnmatchedRefund(rt), sendUnmatchedRefund: simUnmatchedRefund(rt) };
}

export function simulatorPixTasks(rt: Runtime): TaskList {
  return {
    [UNMATCHED_REFUND_SETTLE_TASK]: async (payload) => {
      await settleUnmatchedRefund(rt, (payload as { devolucaoId: string }).devolucaoId, { status: 'COMPLETED' });
    },
  };
}
