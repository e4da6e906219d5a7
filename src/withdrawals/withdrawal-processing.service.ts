import { eventCtes } from '../events/event.sql.js';
import { withStatementRetried, withTransaction, type Executor, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { enqueue, runExclusive } from '../platform/jobs.js';
import { askOrSend, sendRecorded, type PayoutSend, type SendRun } from '../providers/port/payout-send.service.js';
import { markSeen } from '../providers/port/payout-send.sql.js';
import { reportCompletedAfterFailed } from '../providers/port/payout.metrics.js';
import type { PayoutRequest, PayoutResult, SettledPayout } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import { paidPosting, releasePosting } from './withdrawal.ledger.js';
import { lockWithdrawal, selectWithdrawal, settleWithdrawal, startFirstSend, updateToProcessing, type WithdrawalRow } from './withdrawal.sql.js';
import { toWithdrawalView } from './withdrawal.view.js';

/** The processing job; one job key per withdrawal, so re-enqueueing (recovery) never duplicates a waiting job. */
export const processJob = { task: 'withdrawal:process', key: (withdrawalId: string) => `withdrawal:process:${withdrawalId}` };

/** Queues the withdrawal's processing job (a retry of a start, the recovery sweep); its key replaces a waiting one. */
export const enqueueProcessing = (db: Executor, withdrawalId: string) =>
  enqueue(db, processJob.task, { withdrawalId }, { jobKey: processJob.key(withdrawalId) });

/**
 * Test-only fault injection: the points where a worker can die mid-way. `crashAt` makes processing
 * throw SimulatedCrash there, so nothing after the point runs (what a killed process leaves behind).
 * - start: the run holds the withdrawal, nothing done;
 * - afterProcessing: PROCESSING committed (with the first send recorded when it was PENDING), the provider not called;
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
 * The processing run (the job, or a start in the creating process: withdrawal-start.service.ts). Every step is
 * safe to repeat after a crash at any point: PROCESSING commits before the provider is called, every send is
 * recorded before it is made, the provider is asked about the payout before any send but the first (a
 * withdrawal still PENDING was never sent by any release, so the PSP cannot know it), and a result applies
 * only to a withdrawal that is still PROCESSING. One run per withdrawal at a time (docs/contract/psp.md#payout-jobs):
 * a run queued beside one under way (the recovery sweep, a retry) leaves at once, so two runs never send the
 * same payout and one never reads the other's duplicate-id refusal as the PSP refusing the payout.
 */
export async function processWithdrawal(rt: Runtime, withdrawalId: string, opts: ProcessingOptions = {}): Promise<void> {
  await runExclusive(rt.pool, processJob.key(withdrawalId), async () => {
    reach('start', opts);
    // The first send: PENDING → PROCESSING with the send recorded, one statement, then the send itself.
    const first = await startFirstSend(rt.pool, withdrawalId);
    if (first) {
      reach('afterProcessing', opts);
      return finish(rt, first, await sendRecorded(rt.pool, payoutSend(rt, first), { sends: 1, previousSentAt: null }), opts);
    }
    // A run after another (a crash, a retry, the sweep): whatever state it left, the PSP asked first.
    const w = await withTransaction(rt.pool, async (tx) => {
      const row = await lockAndStart(tx, withdrawalId);
      return row && !isFinal(row) ? row : null;
    });
    if (!w) return;
    reach('afterProcessing', opts);
    await finish(rt, w, await askOrSend(rt.pool, payoutSend(rt, w)), opts);
  });
}

const payoutSend = (rt: Runtime, w: WithdrawalRow): PayoutSend<PayoutResult> => ({
  kind: 'withdrawal', key: w.id, notMadeReason: NOT_MADE,
  ask: () => rt.provider.getPayout(w.id),
  send: () => rt.provider.sendPayout(payoutRequest(w)),
  fail: (reason, guard) => failPayout(rt, w.id, reason, guard),
});

/** What a run learnt, applied: a final state recorded; PROCESSING noted as seen; nothing known yet, nothing. */
async function finish(rt: Runtime, w: WithdrawalRow, run: SendRun<PayoutResult>, opts: ProcessingOptions) {
  reach('afterSend', opts);
  // Nothing known yet: the provider reports the result later (recordPayoutResult); the recovery sweep
  // asks again should that report be lost.
  if (run.outcome === 'state') await recordPayoutResult(rt, w.id, run.state, opts, w);
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
 * COMPLETED or FAILED for a withdrawal that is PROCESSING, in one statement (withdrawal.sql.ts settleWithdrawal):
 * the state, the ledger posting and the event commit together; undefined, with nothing written, when it is no
 * longer PROCESSING. `w` is any read of the withdrawal: what the event shows of it besides the result never
 * changes. The event carries the full record and goes only to the withdrawal's clientCallbackUrl when it has one.
 */
function settle(db: Executor, w: WithdrawalRow, result: SettledPayout): Promise<WithdrawalRow | undefined> {
  const completed = result.status === 'COMPLETED';
  const done: WithdrawalRow = {
    ...w, status: result.status, end2end_id: completed ? result.endToEndId : null, failed_reason: completed ? null : result.reason,
    completed_at: completed ? new Date(0) : null, // written by SQL (eventCtes' times)
  };
  const event = eventCtes([{
    merchantId: w.merchant_id, type: completed ? 'WITHDRAWAL_COMPLETED' : 'WITHDRAWAL_FAILED', data: toWithdrawalView(done), callbackUrl: w.callback_url,
  }], { from: 'done', times: completed ? { completedAt: 'done.completed_at' } : {} });
  return settleWithdrawal(db, w.id, result, { event, posting: completed ? paidPosting(w) : releasePosting(w) });
}

/** The result for a PROCESSING withdrawal locked by the caller, in the caller's transaction (an operator's drive, a failure). */
export async function applyPayoutResult(tx: Tx, w: WithdrawalRow, result: SettledPayout): Promise<WithdrawalRow> {
  const done = await settle(tx, w, result);
  if (!done) throw new Error(`withdrawal ${w.id}: locked PROCESSING, yet not settled`);
  return done;
}

/**
 * The provider's answer about a payout (its notification, or what processing learned by asking).
 * Idempotent: applies only while the withdrawal is PROCESSING; otherwise returns it unchanged — a
 * COMPLETED for a FAILED one (its money already back in available) is counted and logged for the operator.
 * Returns null for an unknown id.
 */
export async function recordPayoutResult(
  rt: Runtime, withdrawalId: string, result: PayoutResult, opts: ProcessingOptions = {}, known?: WithdrawalRow,
): Promise<WithdrawalRow | null> {
  // The PSP reported the payout: from now on its "not found" is never taken as proof it was not made.
  if (result.status === 'PROCESSING') return (await markSeen<WithdrawalRow>(rt.pool, 'withdrawal', withdrawalId)) ?? null;
  const w = known ?? await selectWithdrawal(rt.pool, withdrawalId);
  if (w?.status === 'PROCESSING') {
    const write = (db: Executor) => settle(db, w, result);
    // The test-only crash point needs the statement inside a transaction to die before its COMMIT.
    const done = opts.crashAt === 'beforeResultCommit'
      ? await withTransaction(rt.pool, async (tx) => {
        const settled = await write(tx);
        reach('beforeResultCommit', opts);
        return settled;
      })
      : await withStatementRetried(rt.pool, write);
    if (done) return done;
  }
  // Not PROCESSING (or no longer, when the statement ran): as it is now.
  const now = w?.status === 'PROCESSING' ? await selectWithdrawal(rt.pool, withdrawalId) : w;
  if (now?.status === 'FAILED' && result.status === 'COMPLETED') reportCompletedAfterFailed(rt.config.logLevel, 'withdrawal', now.id);
  return now ?? null;
}
