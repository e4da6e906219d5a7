import { emitEvent } from '../events/event.sql.js';
import { withTransaction, type Tx } from '../platform/db.js';
import { AppError, notFound } from '../platform/errors.js';
import { PayoutRefused, type PayoutRequest, type PayoutResult, type SettledPayout } from '../providers/port/provider.port.js';
import type { Runtime } from '../runtime.js';
import { payWithdrawal, releaseWithdrawal } from './withdrawal.ledger.js';
import {
  beginPayoutSend, lockUnmadePayout, lockWithdrawal, markPayoutSeen, undoPayoutSend, updateToCompleted, updateToFailed, updateToProcessing,
  type WithdrawalRow,
} from './withdrawal.sql.js';
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
 * under a row lock, PROCESSING commits before the provider is called, the provider is asked about
 * the payout before a send (and deduplicates sends by withdrawal id anyway), and a result applies
 * only to a withdrawal that is still PROCESSING.
 */
export async function processWithdrawal(rt: Runtime, withdrawalId: string, opts: ProcessingOptions = {}): Promise<void> {
  reach('start', opts);
  const w = await withTransaction(rt.pool, async (tx) => {
    const row = await lockAndStart(tx, withdrawalId);
    return row && !isFinal(row) ? row : null;
  });
  if (!w) return;
  reach('afterProcessing', opts);
  const result = await askOrSend(rt, w);
  reach('afterSend', opts);
  // PROCESSING or unknown: the provider reports the result later (recordPayoutResult); the recovery
  // sweep asks again should that report be lost.
  if (result) await recordPayoutResult(rt, w.id, result, opts);
}

/** docs/contract/psp.md#uncertain-payouts: how long the PSP must keep saying "not found" after an uncertain send before the payout counts as not made. */
export const NOT_FOUND_FAILS_AFTER_MS = 10 * 60_000;
const NOT_MADE = 'The PSP has no record of the payout';

/**
 * Asks the PSP about the payout by its id, and sends it when the PSP does not know it. A send is recorded
 * before it is made; one that gets no clear answer (a timeout, a reset, a 5xx: sendPayout throws) is
 * uncertain, and from then on only the PSP's word ends the payout: a status on it, or "not found" for
 * NOT_FOUND_FAILS_AFTER_MS after the latest uncertain send, while it never reported the payout. A refusal
 * (400/422) fails the payout only when it answers the first send; to a resend it proves nothing.
 * Answers null when nothing is known yet (the withdrawal stays PROCESSING).
 */
async function askOrSend(rt: Runtime, w: WithdrawalRow): Promise<PayoutResult | null> {
  const known = await rt.provider.getPayout(w.id);
  if (known) return known;
  if (w.payout_seen) return null; // it existed at the PSP: "not found" now is its lag
  if (w.payout_sends > 0 && (await failUnmadePayout(rt, w.id))) return null;
  const send = await beginPayoutSend(rt.pool, w.id);
  if (!send) return null;
  try {
    return await rt.provider.sendPayout(payoutRequest(w));
  } catch (err) {
    if (!(err instanceof PayoutRefused)) throw err; // uncertain: the job retries, asking first
    if (send.sends === 1) return { status: 'FAILED', reason: err.reason };
    await undoPayoutSend(rt.pool, w.id, send.sends, send.previousSentAt);
    return null;
  }
}

/** FAILED with the money returned, when the PSP's "not found" has held long enough (lockUnmadePayout). */
async function failUnmadePayout(rt: Runtime, withdrawalId: string): Promise<boolean> {
  return withTransaction(rt.pool, async (tx) => {
    const w = await lockUnmadePayout(tx, withdrawalId, NOT_FOUND_FAILS_AFTER_MS);
    if (w) await applyPayoutResult(tx, w, { status: 'FAILED', reason: NOT_MADE });
    return !!w;
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
 * Idempotent: applies only while the withdrawal is PROCESSING; otherwise returns it unchanged.
 * Returns null for an unknown id.
 */
export async function recordPayoutResult(
  rt: Runtime, withdrawalId: string, result: PayoutResult, opts: ProcessingOptions = {},
): Promise<WithdrawalRow | null> {
  // The PSP reported the payout: from now on its "not found" is never taken as proof it was not made.
  if (result.status === 'PROCESSING') return (await markPayoutSeen(rt.pool, withdrawalId)) ?? null;
  return withTransaction(rt.pool, async (tx) => {
    const w = await lockWithdrawal(tx, withdrawalId);
    if (!w || w.status !== 'PROCESSING') return w ?? null;
    const done = await applyPayoutResult(tx, w, result);
    reach('beforeResultCommit', opts);
    return done;
  });
}
