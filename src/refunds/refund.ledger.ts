import { merchantAccount, PAYOUTS_IN_TRANSIT, post, PSP_CLEARING } from '../ledger/ledger.js';
import type { Tx } from '../platform/db.js';
import type { SplitRow } from '../charges/charge.sql.js';
import type { RefundRow } from './refund.sql.js';

type Parties = Pick<RefundRow, 'id' | 'merchant_id' | 'amount' | 'merchant_debit'>;

/** Who gives back what: the merchant amount − Σ split, each recipient its share (the fee is kept). */
const debits = (r: Parties, splits: SplitRow[], sign: 1 | -1) => [
  { account: merchantAccount(r.merchant_id, 'available'), amount: sign * r.merchant_debit },
  ...splits.map((s) => ({ account: merchantAccount(s.recipient_id, 'available'), amount: sign * s.amount })),
];

/**
 * Acceptance: every party debited in one posting, which locks their balances in account-id order
 * and fails as a whole (INSUFFICIENT_BALANCE naming the merchant) if any would go negative.
 */
export async function postRefund(tx: Tx, r: Parties, splits: SplitRow[]): Promise<void> {
  await post(tx, { kind: 'REFUND', reference: r.id, entries: [...debits(r, splits, -1), { account: PAYOUTS_IN_TRANSIT, amount: r.amount }] });
}

/** The PSP returned the money to the payer. */
export async function postRefundSettled(tx: Tx, r: Parties): Promise<void> {
  await post(tx, {
    kind: 'REFUND_SETTLED', reference: r.id,
    entries: [{ account: PAYOUTS_IN_TRANSIT, amount: -r.amount }, { account: PSP_CLEARING, amount: r.amount }],
  });
}

/** The PSP could not return it: every debit is reversed. */
export async function postRefundReversal(tx: Tx, r: Parties, splits: SplitRow[]): Promise<void> {
  await post(tx, { kind: 'REFUND_REVERSAL', reference: r.id, entries: [{ account: PAYOUTS_IN_TRANSIT, amount: -r.amount }, ...debits(r, splits, 1)] });
}
