import type { TaskList } from 'graphile-worker';
import { newEndToEndId } from '../../pix/index.js';
import { withTransaction, type Executor } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { enqueue } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import {
  applyPayoutResult, lockForSettlement, recordPayoutResult, type ProcessingOptions,
} from '../../withdrawals/withdrawal-processing.service.js';
import type { WithdrawalRow } from '../../withdrawals/withdrawal.sql.js';
import { withdrawalIdOf } from '../../withdrawals/withdrawal.tasks.js';
import type { PayoutResult, PixProvider, SettledPayout } from '../port/provider.port.js';
import {
  insertSimPayout, selectSimPayout, settleSimPayoutRow, type SimPayoutKey, type SimPayoutRow,
} from './sim-payouts.sql.js';
import { SIM_ISPB } from './sim-charges.provider.js';

export const SIM_FAIL_REASON = 'Payout rejected by the receiving institution';
const SETTLE_TASK = 'sim:payout:settle';

const resultOf = (p: SimPayoutRow): PayoutResult =>
  p.status === 'COMPLETED' ? { status: 'COMPLETED', endToEndId: p.end_to_end_id! }
  : p.status === 'FAILED' ? { status: 'FAILED', reason: p.failed_reason! }
  : { status: 'PROCESSING' };

/** docs/contract/operator.md#simulator: a payout to an EMAIL key at the domain fail.test always fails. */
const failsOnItsOwn = (p: Pick<SimPayoutRow, 'pix_key' | 'pix_key_type'>) =>
  p.pix_key_type === 'EMAIL' && p.pix_key.toLowerCase().endsWith('@fail.test');

const completed = (): SettledPayout => ({ status: 'COMPLETED', endToEndId: newEndToEndId(SIM_ISPB, new Date()) });

// A settlement due now is queued without run_at: a run_at from this clock lies just past the
// transaction's now(), so the job would wait for the next poll instead of being picked up at once.
const scheduleSettlement = (db: Executor, withdrawalId: string, delayMs: number) =>
  enqueue(db, SETTLE_TASK, { withdrawalId }, {
    runAt: delayMs > 0 ? new Date(Date.now() + delayMs) : undefined, jobKey: `${SETTLE_TASK}:${withdrawalId}`,
  });

export function simulatedPayouts(rt: Runtime): Pick<PixProvider, 'sendPayout' | 'getPayout'> {
  return {
    // Keyed by the withdrawal id: a second send returns the first one's state and never pays again.
    sendPayout: async (input) => {
      // With no delay the network settles at once, in the send's own statement, and answers the final state.
      if (rt.config.simPayoutDelayMs === 0) {
        const settled = await insertSimPayout(rt.pool, input, failsOnItsOwn({ pix_key: input.pixKey, pix_key_type: input.pixKeyType }) ? { status: 'FAILED', reason: SIM_FAIL_REASON } : completed());
        return resultOf(settled ?? (await selectSimPayout(rt.pool, input.withdrawalId))!);
      }
      return withTransaction(rt.pool, async (tx) => {
        if (!(await insertSimPayout(tx, input))) return resultOf((await selectSimPayout(tx, input.withdrawalId))!);
        await scheduleSettlement(tx, input.withdrawalId, rt.config.simPayoutDelayMs);
        return { status: 'PROCESSING' };
      });
    },
    getPayout: async (withdrawalId) => {
      const p = await selectSimPayout(rt.pool, withdrawalId);
      if (!p) return null;
      // A real PSP settles whatever happens to our workers, but the simulated one settles through our
      // job queue, where a job taken by a worker that died stays locked for hours. Asked about a payout
      // that is overdue (the core's recovery asks), it schedules the settlement again; settling twice is
      // harmless, and a new job under the key retires the dead one.
      if (p.status === 'PROCESSING' && Date.now() >= p.created_at.getTime() + rt.config.simPayoutDelayMs) {
        await scheduleSettlement(rt.pool, withdrawalId, 0);
      }
      return resultOf(p);
    },
  };
}

/**
 * The network settles a payout on its own (after SIM_PAYOUT_DELAY_MS) and notifies the core, as a
 * PSP's webhook would. Safe to repeat: an already settled payout is only reported again.
 * `opts` passes the test-only crash point on to the core's recording of the result.
 */
export async function settleSimPayout(rt: Runtime, withdrawalId: string, opts: ProcessingOptions = {}): Promise<void> {
  const payout = await withTransaction(rt.pool, async (tx) => {
    const p = await selectSimPayout(tx, withdrawalId, true);
    if (!p || p.status !== 'PROCESSING') return p;
    const key: SimPayoutKey = { withdrawalId, amount: p.amount, pixKey: p.pix_key, pixKeyType: p.pix_key_type };
    return settleSimPayoutRow(tx, key, failsOnItsOwn(p) ? { status: 'FAILED', reason: SIM_FAIL_REASON } : completed());
  });
  if (payout) await recordPayoutResult(rt, withdrawalId, resultOf(payout), opts);
}

/**
 * Operator control: settles the payout now with the given outcome and applies it to the withdrawal
 * in one transaction. A PENDING withdrawal is moved through PROCESSING; its payout is recorded as
 * already settled, so the processing job later finds it settled and never sends it.
 */
export async function driveSimPayout(rt: Runtime, withdrawalId: string, outcome: { fail: false } | { fail: true; reason: string }): Promise<WithdrawalRow> {
  return withTransaction(rt.pool, async (tx) => {
    const w = await lockForSettlement(tx, withdrawalId);
    const key: SimPayoutKey = { withdrawalId, amount: w.amount, pixKey: w.pix_key, pixKeyType: w.pix_key_type };
    // fail.test always fails (docs/contract/operator.md#simulator): driving such a payout to complete still fails it.
    const settlement: SettledPayout = outcome.fail ? { status: 'FAILED', reason: outcome.reason }
      : failsOnItsOwn(w) ? { status: 'FAILED', reason: SIM_FAIL_REASON } : completed();
    if (!(await settleSimPayoutRow(tx, key, settlement))) {
      throw new AppError('INVALID_STATE', `Withdrawal ${withdrawalId}: its payout has already settled`);
    }
    return applyPayoutResult(tx, w, settlement);
  });
}

export function simulatorPayoutTasks(rt: Runtime): TaskList {
  return {
    [SETTLE_TASK]: (payload) => settleSimPayout(rt, withdrawalIdOf(payload)),
  };
}
