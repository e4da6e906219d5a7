import { FEE_REVENUE, merchantAccount, PSP_CLEARING, type Posting } from '../ledger/ledger.js';
import type { WithdrawalRow } from './withdrawal.sql.js';

type Money = Pick<WithdrawalRow, 'id' | 'merchant_id' | 'amount' | 'fee'>;

/**
 * The three postings of a withdrawal (docs/withdrawals.md), each written by the statement of its state change
 * (withdrawal.sql.ts); each happens at most once per withdrawal, which unique indexes on ledger_transactions
 * enforce. `amount + fee` is what the merchant gives up.
 */

/** Create: amount + fee leaves available for pending. INSUFFICIENT_BALANCE when available does not cover it. */
export const reservePosting = (w: Money): Posting => ({
  kind: 'WITHDRAWAL_RESERVE',
  reference: w.id,
  entries: [
    { account: merchantAccount(w.merchant_id, 'available'), amount: -(w.amount + w.fee) },
    { account: merchantAccount(w.merchant_id, 'pending'), amount: w.amount + w.fee },
  ],
});

/** COMPLETED: the reservation leaves pending; the amount went out through the PSP, the fee is the platform's. */
export const paidPosting = (w: Money): Posting => ({
  kind: 'WITHDRAWAL_PAID',
  reference: w.id,
  entries: [
    { account: merchantAccount(w.merchant_id, 'pending'), amount: -(w.amount + w.fee) },
    { account: PSP_CLEARING, amount: w.amount },
    { account: FEE_REVENUE, amount: w.fee },
  ],
});

/** FAILED: all of it, fee included, returns to available (docs/contract/withdrawals.md#withdrawal-states). */
export const releasePosting = (w: Money): Posting => ({
  kind: 'WITHDRAWAL_RELEASE',
  reference: w.id,
  entries: [
    { account: merchantAccount(w.merchant_id, 'pending'), amount: -(w.amount + w.fee) },
    { account: merchantAccount(w.merchant_id, 'available'), amount: w.amount + w.fee },
  ],
});
