import type { LineType, StatementAccount, StatementLineView } from './statement.schemas.js';
import type { LineRow } from './statement.sql.js';

/**
 * A line's type from its posting's kind and the account it moved (docs/contract/statement.md#line-types). A payment credits
 * the charging merchant (CHARGE_PAID) and each split recipient (SPLIT_RECEIVED); a withdrawal's pending
 * counter-lines are named like the available lines they mirror.
 */
function lineType(row: LineRow, merchantId: string): LineType | string {
  switch (row.kind) {
    case 'CHARGE_PAYMENT': return row.charge_merchant === merchantId ? 'CHARGE_PAID' : 'SPLIT_RECEIVED';
    case 'REFUND': return 'REFUND';
    case 'REFUND_REVERSAL': return 'REFUND_REVERSED';
    case 'WITHDRAWAL_RESERVE': return 'WITHDRAWAL';
    case 'WITHDRAWAL_PAID': return 'WITHDRAWAL_COMPLETED';
    case 'WITHDRAWAL_RELEASE': return 'WITHDRAWAL_RETURNED';
    case 'DISPUTE_BLOCK': return 'DISPUTE_BLOCKED';
    case 'DISPUTE_RELEASE': return 'DISPUTE_RELEASED';
    case 'DISPUTE_RETURN': return 'DISPUTE_RETURNED';
    // A posting kind this version does not name (an operator's manual adjustment): shown as it is.
    default: return row.kind;
  }
}

/** The fee inside this line's amount that the merchant pays: a charge's fee on its credit, a withdrawal's while it leaves. */
function lineFee(type: string, row: LineRow): number {
  if (type === 'CHARGE_PAID') return row.charge_fee ?? 0;
  if (type === 'WITHDRAWAL' || type === 'WITHDRAWAL_COMPLETED') return row.withdrawal_fee ?? 0;
  return 0;
}

function describe(type: string, row: LineRow, account: StatementAccount): string {
  const c = row.charge_id;
  const w = row.withdrawal_id;
  switch (type) {
    case 'CHARGE_PAID': return `Charge ${c} paid`;
    case 'SPLIT_RECEIVED': return `Split share of charge ${c}`;
    case 'REFUND': return `Refund of charge ${c}`;
    case 'REFUND_REVERSED': return `Refund of charge ${c} failed; amount returned`;
    case 'WITHDRAWAL': return account === 'available' ? `Withdrawal ${w}` : `Withdrawal ${w} reserved`;
    case 'WITHDRAWAL_COMPLETED': return `Withdrawal ${w} paid out`;
    case 'WITHDRAWAL_RETURNED': return `Withdrawal ${w} failed; amount returned`;
    case 'DISPUTE_BLOCKED': return `Dispute on charge ${c}: amount blocked`;
    case 'DISPUTE_RELEASED': return `Dispute on charge ${c} rejected: amount released`;
    case 'DISPUTE_RETURNED': return `Dispute on charge ${c} accepted: amount returned to the payer`;
    default: return type;
  }
}

export function toLineView(row: LineRow, account: StatementAccount, merchantId: string): StatementLineView {
  const type = lineType(row, merchantId);
  // The PIX end-to-end id this line reconciles with: the merchant's own payment (its refunds and disputes
  // included), or the withdrawal's payout. A split recipient received no PIX of its own: none.
  const ownCharge = row.charge_merchant === merchantId;
  const end2endId = row.withdrawal_id ? row.withdrawal_e2e : ownCharge ? row.payment_e2e : null;
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    account,
    type: type as LineType,
    amount: row.amount,
    balanceAfter: row.balance_after,
    fee: lineFee(type, row),
    chargeId: row.charge_id,
    refundId: row.refund_id ?? row.dispute_refund_id,
    withdrawalId: row.withdrawal_id,
    disputeId: row.dispute_id,
    end2endId: end2endId ?? null,
    description: describe(type, row, account),
  };
}
