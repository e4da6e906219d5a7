import type pg from 'pg';
import type { Tx } from '../../platform/db.js';
import { PayoutRefused } from './provider.port.js';
import { beginSend, isOnlySend, notFoundLongEnough, selectSendLog, undoSend, type BegunSend, type PayoutKind } from './payout-send.sql.js';

/** docs/contract/psp.md#uncertain-payouts: how long the PSP must keep saying "not found" after an uncertain send before the payout counts as not made. */
export const NOT_FOUND_FAILS_AFTER_MS = 10 * 60_000;

/**
 * Ends the payout as FAILED with `reason` — in one transaction, the kind's rows locked in the kind's own
 * order, the money returned — only if `guard` holds once they are locked; answers whether it did.
 */
export type FailPayout = (reason: string, guard: (tx: Tx) => Promise<boolean>) => Promise<boolean>;

/** One payout as the core drives it through the port, whichever its kind. */
export interface PayoutSend<State> {
  kind: PayoutKind;
  /** The payout's id in its send log (a withdrawal id, a refund id, an unmatched payment's devolução id). */
  key: string;
  /** The PSP's state of the payout, asked by its id; null when the PSP does not know it. */
  ask(): Promise<State | null>;
  /** One send: throws PayoutRefused when the PSP refused this request; any other failure may have sent it. */
  send(): Promise<State>;
  fail: FailPayout;
  /** The failedReason when the PSP's "not found" has held long enough after an uncertain send. */
  notMadeReason: string;
}

/** What a run learned: the PSP's word on the payout; the payout ended (failed here, or no longer open); or nothing yet. */
export type SendRun<State> = { outcome: 'state'; state: State } | { outcome: 'ended' } | { outcome: 'undecided' };

const ENDED = { outcome: 'ended' } as const;
const UNDECIDED = { outcome: 'undecided' } as const;

/**
 * The one rule of every payout's send (docs/contract/psp.md#payout-jobs, #uncertain-payouts), for a run
 * that holds the payout alone (runExclusive). The PSP is asked about the payout by its id first, and sent
 * it only when it does not know it. A send is recorded before it is made; one that gets no clear answer
 * (a timeout, a reset, a 5xx: `send` throws) is uncertain, and from then on only the PSP's word ends the
 * payout: a status on it, or "not found" for NOT_FOUND_FAILS_AFTER_MS after the latest uncertain send
 * while it never reported the payout. A refusal fails the payout only when it answers the first send and
 * no other send has begun since (checked under the kind's lock, so a run that lost its exclusivity still
 * cannot take another's duplicate-id refusal for a failure); to a resend it proves nothing.
 */
export async function askOrSend<State>(pool: pg.Pool, p: PayoutSend<State>): Promise<SendRun<State>> {
  const known = await p.ask();
  if (known) return { outcome: 'state', state: known };
  const log = await selectSendLog(pool, p.kind, p.key);
  if (!log) return ENDED;
  if (log.seen) return UNDECIDED; // it existed at the PSP: "not found" now is its lag
  const notMade = (tx: Tx) => notFoundLongEnough(tx, p.kind, p.key, NOT_FOUND_FAILS_AFTER_MS);
  if (log.sends > 0 && (await p.fail(p.notMadeReason, notMade))) return ENDED;
  const send = await beginSend(pool, p.kind, p.key);
  if (!send) return ENDED;
  return sendRecorded(pool, p, send);
}

/**
 * The send itself, once recorded (`send`: by beginSend, or by the statement that opened a payout never sent,
 * which needs no question to the PSP: a payout no one sent cannot exist there). A refusal fails the payout
 * only when it answers the first send and no other has begun since; an uncertain send throws, and the next
 * run asks before it sends again.
 */
export async function sendRecorded<State>(pool: pg.Pool, p: PayoutSend<State>, send: BegunSend): Promise<SendRun<State>> {
  try {
    return { outcome: 'state', state: await p.send() };
  } catch (err) {
    if (!(err instanceof PayoutRefused)) throw err; // uncertain: asked about first on the next run
    if (send.sends === 1 && (await p.fail(err.reason, (tx) => isOnlySend(tx, p.kind, p.key)))) return ENDED;
    await undoSend(pool, p.kind, p.key, send);
    return UNDECIDED;
  }
}
