import { emitEvent } from '../events/event.sql.js';
import { withTransaction, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { runExclusive } from '../platform/jobs.js';
import { askOrSend } from '../providers/port/payout-send.service.js';
import { markSeen } from '../providers/port/payout-send.sql.js';
import { reportCompletedAfterFailed } from '../providers/port/payout.metrics.js';
import type { PayoutRequest, PayoutResult, SettledPayout } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import { payWithdrawal, releaseWithdrawal } from './withdrawal.ledger.js';
import { lockWithdrawal, updateToCompleted, updateToFailed, updateToProcessing, type WithdrawalRow } from './withdrawal.sql.js';
import { toWithdrawalView } from './withdrawal.view.js';

/** The processing job; one job key per withdrawal, so re-enqueueing (recovery) never duplicates a waiting job. */
export const processJob = { task: 'withdrawal:process', key: (withdrawalId: string) => `withdrawal:process:${withdrawalId}` };

/**
 * Test-only fault injection: the points where a worker can die mid-way. `crashAt` makes processing
 * throw SimulatedCrash there, so nothing after the point runs (what a killed process leaves behind).
 * - start: the job was taken, nothing done;
 * - afterProcessing: PROCESSING committed, the provider not called;
 * - afterSend: the provider accepted the payout, nothing recorded about it;
 * - beforeResultCommit: the result's state change and ledger posting written but not committed.
 */
export type CrashPoint = 'start' | 'afterProcessing' | 'afterSend' | 'beforeResultCommit';
export interface ProcessingOptions {
  crashAt?: CrashPoint;
}

export class SimulatedCrash extends Error {
  constructor(readonly point: CrashPoint) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}

function reach(point: CrashPoint, opts: ProcessingOptions): void {
  if (opts.crashAt === point) throw new SimulatedCrash(point);
}

const isFinal = (w: WithdrawalRow) => w.status === 'COMPLETED' || w.status === 'FAILED';

/** The withdrawal locked and, when still PENDING, moved to PROCESSING in the caller's transaction; a final one as it is. */
async function lockAndStart(tx: Tx, withdrawalId: string): Promise<WithdrawalRow | undefined> {
  const w = await lockWithdrawal(tx, withdrawalId);
  return w?.status === 'PENDING' ? updateToProcessing(tx, w.id) : w;
}

/**
 * For an operator driving a payout's result (simulator controls): the withdrawal locked, moved through
 * PROCESSING when it was not picked up yet, ready for applyPayoutResult in the same transaction.
 */
export async function lockForSettlement(tx: Tx, withdrawalId: string): Promise<WithdrawalRow> {
  const w = await lockAndStart(tx, withdrawalId);
  if (!w) throw notFound('Withdrawal');
  if (isFinal(w)) throw new AppError('INVALID_STATE', `Withdrawal ${withdrawalId} is already ${w.status}`);
  return w;
}

const payoutRequest = (w: WithdrawalRow): PayoutRequest => ({
  withdrawalId: w.id, amount: w.amount, pixKey: w.pix_key, pixKeyType: w.pix_key_type, description: w.description, taxId: w.tax_id,
});

/**
 * The processing job. Every step is safe to repeat after a crash at any point: the state is re-read
 * under a row lock, PROCESSING commits before the provider is called, the provider is asked about the
 * payout before a send (and deduplicates sends by withdrawal id anyway), and a result applies only to a
 * withdrawal that is still PROCESSING. One run per withdrawal at a time (docs/contract/psp.md#payout-jobs):
 * a run queued beside one under way (the recovery sweep, a retry) leaves at once, so two runs never send
 * the same payout and one never reads the other's duplicate-id refusal as the PSP refusing the payout.
 */
export async function processWithdrawal(rt: Runtime, withdrawalId: string, opts: ProcessingOptions = {}): Promise<void> {
  await runExclusive(rt.pool, processJob.key(withdrawalId), async () => {
    reach('start', opts);
    const w = await withTransaction(rt.pool, async (tx) => {
      const row = await lockAndStart(tx, withdrawalId);
      return row && !isFinal(row) ? row : null;
    });
    if (!w) return;
    reach('afterProcessing', opts);
    const run = await askOrSend(rt.pool, {
      kind: 'withdrawal', key: w.id, notMadeReason: NOT_MADE,
      ask: () => rt.provider.getPayout(w.id),
      send: () => rt.provider.sendPayout(payoutRequest(w)),
      fail: (reason, guard) => failPayout(rt, w.id, reason, guard),
    });
    reach('afterSend', opts);
    // Nothing known yet: the provider reports the result later (recordPayoutResult); the recovery sweep
    // asks again should that report be lost.
    if (run.outcome === 'state') await recordPayoutResult(rt, w.id, run.state, opts);
  });
}

const NOT_MADE = 'The PSP has no record of the payout';

/** FAILED with the money returned, when `guard` holds with the withdrawal locked (askOrSend's rule). */
function failPayout(rt: Runtime, withdrawalId: string, reason: string, guard: (tx: Tx) => Promise<boolean>): Promise<boolean> {
  return withTransaction(rt.pool, async (tx) => {
    const w = await lockWithdrawal(tx, withdrawalId);
    if (w?.status !== 'PROCESSING' || !(await guard(tx))) return false;
    await applyPayoutResult(tx, w, { status: 'FAILED', reason });
    return true;
  });
}

/**
 * COMPLETED or FAILED for a PROCESSING withdrawal (locked by the caller): the state, the ledger
 * posting and the event commit together. The event carries the full record and goes only to the
 * withdrawal's clientCallbackUrl when it has one.
 */
export async function applyPayoutResult(tx: Tx, w: WithdrawalRow, result: SettledPayout): Promise<WithdrawalRow> {
  let done: WithdrawalRow;
  if (result.status === 'COMPLETED') {
    done = await updateToCompleted(tx, w.id, result.endToEndId);
    await payWithdrawal(tx, w);
  } else {
    done = await updateToFailed(tx, w.id, result.reason);
    await releaseWithdrawal(tx, w);
  }
  await emitEvent(tx, {
    merchantId: w.merchant_id,
    type: result.status === 'COMPLETED' ? 'WITHDRAWAL_COMPLETED' : 'WITHDRAWAL_FAILED',
    data: toWithdrawalView(done),
    callbackUrl: w.callback_url,
  });
  return done;
}

/**
 * The provider's answer about a payout (its notification, or what processing learned by asking).
 * Idempotent: applies only while the withdrawal is PROCESSING; otherwise returns it unchanged — a
 * COMPLETED for a FAILED one (its money already back in available) is counted and logged for the operator.
 * Returns null for an unknown id.
 */
export async function recordPayoutResult(
  rt: Runtime, withdrawalId: string, result: PayoutResult, opts: ProcessingOptions = {},
): Promise<WithdrawalRow | null> {
  // The PSP reported the payout: from now on its "not found" is never taken as proof it was not made.
  if (result.status === 'PROCESSING') return (await markSeen<WithdrawalRow>(rt.pool, 'withdrawal', withdrawalId)) ?? null;
  return withTransaction(rt.pool, async (tx) => {
    const w = await lockWithdrawal(tx, withdrawalId);
    if (w?.status === 'FAILED' && result.status === 'COMPLETED') reportCompletedAfterFailed(rt.config.logLevel, 'withdrawal', w.id);
    if (!w || w.status !== 'PROCESSING') return w ?? null;
    const done = await applyPayoutResult(tx, w, result);
    reach('beforeResultCommit', opts);
    return done;
  });
}
