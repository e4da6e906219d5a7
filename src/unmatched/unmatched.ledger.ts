import { PAYOUTS_IN_TRANSIT, post, PSP_CLEARING } from '../ledger/ledger.js';
import type { Tx } from '../platform/db.js';

/** Money held at the PSP for the payers of unmatched payments (migration 0007); owed to no merchant. */
export const UNMATCHED_FUNDS = 'platform:unmatched_funds';

type Unmatched = { id: string; amount: number };

const move = (tx: Tx, kind: string, u: Unmatched, from: string, to: string) =>
  post(tx, { kind, reference: u.id, entries: [{ account: from, amount: -u.amount }, { account: to, amount: u.amount }] });

/** The PIX arrived at the PSP (the asset side grows, as for a charge payment) and is held for its payer. */
export const postUnmatchedReceived = (tx: Tx, u: Unmatched) => move(tx, 'UNMATCHED_PAYMENT', u, PSP_CLEARING, UNMATCHED_FUNDS);

/** A devolução was asked for: the money is on its way out, as a charge refund's is. */
export const postUnmatchedRefund = (tx: Tx, u: Unmatched) => move(tx, 'UNMATCHED_REFUND', u, UNMATCHED_FUNDS, PAYOUTS_IN_TRANSIT);

/** The PSP returned it to the payer. */
export const postUnmatchedRefundSettled = (tx: Tx, u: Unmatched) => move(tx, 'UNMATCHED_REFUND_SETTLED', u, PAYOUTS_IN_TRANSIT, PSP_CLEARING);

/** The PSP could not: it is held for the payer again. */
export const postUnmatchedRefundReversal = (tx: Tx, u: Unmatched) => move(tx, 'UNMATCHED_REFUND_REVERSAL', u, PAYOUTS_IN_TRANSIT, UNMATCHED_FUNDS);
