import type { CreatedWithdrawalView, WithdrawalListItemView, WithdrawalView } from './withdrawal.schemas.js';
import type { WithdrawalRow } from './withdrawal.sql.js';

/** The three API shapes of a withdrawal (docs/contract/withdrawals.md#withdrawals): create answer ⊂ list item ⊂ full record. */
export function toCreatedView(w: WithdrawalRow): CreatedWithdrawalView {
  return { id: w.id, amount: w.amount, fee: w.fee, status: w.status, description: w.description, createdAt: w.created_at.toISOString() };
}

export function toListItemView(w: WithdrawalRow): WithdrawalListItemView {
  return { ...toCreatedView(w), completedAt: w.completed_at?.toISOString() ?? null, failedReason: w.failed_reason };
}

/** The full record, as GET /withdrawals/{id} answers it and as WITHDRAWAL_* events carry it. */
export function toWithdrawalView(w: WithdrawalRow): WithdrawalView {
  return { ...toListItemView(w), pixKey: w.pix_key, pixKeyType: w.pix_key_type, taxId: w.tax_id, end2endId: w.end2end_id };
}
