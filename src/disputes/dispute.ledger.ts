import { merchantAccount, post, PSP_CLEARING } from '../ledger/ledger.js';
import type { Tx } from '../platform/db.js';
import type { DisputeRow } from './dispute.sql.js';

type Held = Pick<DisputeRow, 'id' | 'merchant_id' | 'blocked_amount'>;

async function move(tx: Tx, kind: string, d: Held, from: string, to: string): Promise<void> {
  // Nothing could be blocked (no available balance): there is nothing to post.
  if (d.blocked_amount === 0) return;
  await post(tx, { kind, reference: d.id, entries: [{ account: from, amount: -d.blocked_amount }, { account: to, amount: d.blocked_amount }] });
}

const available = (d: Held) => merchantAccount(d.merchant_id, 'available');
const blocked = (d: Held) => merchantAccount(d.merchant_id, 'blocked');

/** Opened: the merchant's net share, capped at its available balance, moves to blocked. */
export const postDisputeBlock = (tx: Tx, d: Held) => move(tx, 'DISPUTE_BLOCK', d, available(d), blocked(d));
/** Rejected: the block is lifted. */
export const postDisputeRelease = (tx: Tx, d: Held) => move(tx, 'DISPUTE_RELEASE', d, blocked(d), available(d));
/** Accepted: the blocked amount goes back to the payer through the PSP. */
export const postDisputeReturn = (tx: Tx, d: Held) => move(tx, 'DISPUTE_RETURN', d, blocked(d), PSP_CLEARING);
