import { Type, type Static } from 'typebox';
import { PIX_KEY_TYPES } from '../pix/index.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/webhook-url.rules.js';

export const WITHDRAWAL_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

const Status = StringEnum(WITHDRAWAL_STATUSES);
const KeyType = StringEnum(PIX_KEY_TYPES);

/** POST /withdrawals (docs/contract/withdrawals.md#withdrawals). The key's format, the URL's rules and the merchant limit are checked in the service. */
export const CreateWithdrawalBody = Type.Object({
  amount: Type.Integer({ minimum: 50, maximum: 100_000_000, description: 'Cents the recipient receives; the fee is debited on top.' }),
  pixKey: Type.String({ minLength: 1, maxLength: 140 }),
  pixKeyType: KeyType,
  description: Type.Optional(Type.String({ maxLength: 140 })),
  // A plain or masked CPF/CNPJ, not checked further (docs/contract/withdrawals.md#withdrawals).
  taxId: Type.Optional(Type.String({ maxLength: 18, pattern: '^[0-9./-]*$' })),
  clientCallbackUrl: Type.Optional(Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'Public HTTPS URL; this withdrawal\'s events go only there.' })),
});
export type CreateWithdrawalInput = Static<typeof CreateWithdrawalBody>;

/** GET /withdrawals/quote?amount=: what a withdrawal of that amount would cost, before asking for it. */
export const WithdrawalQuoteQuery = Type.Object({ amount: CreateWithdrawalBody.properties.amount });
export const WithdrawalQuote = Type.Object({
  amount: Type.Integer(),
  fee: Type.Integer({ description: 'Cents debited on top of the amount.' }),
  total: Type.Integer({ description: 'amount + fee: what leaves the available balance.' }),
  available: Type.Integer({ description: 'The available balance now; a request for more than it is INSUFFICIENT_BALANCE.' }),
});
export type WithdrawalQuoteView = Static<typeof WithdrawalQuote>;

export const ListWithdrawalsQuery = Type.Object({ status: Type.Optional(Status), ...PageQuery });
export type ListWithdrawalsInput = Static<typeof ListWithdrawalsQuery>;

export const WithdrawalIdParams = Type.Object({ id: Type.String() });

/** The create answer is lean: no pixKey, pixKeyType (docs/contract/withdrawals.md#withdrawals). */
export const CreatedWithdrawal = Type.Object({
  id: Type.String(),
  amount: Type.Integer(),
  fee: Type.Integer(),
  status: Status,
  description: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const WithdrawalListItem = Type.Object({
  ...CreatedWithdrawal.properties,
  completedAt: Nullable(Timestamp),
  failedReason: Nullable(Type.String()),
});

/** The full record: GET /withdrawals/{id}, the simulator controls and WITHDRAWAL_* event data. */
export const Withdrawal = Type.Object({
  ...WithdrawalListItem.properties,
  pixKey: Type.String(),
  pixKeyType: KeyType,
  taxId: Nullable(Type.String()),
  end2endId: Nullable(Type.String()),
});

export type CreatedWithdrawalView = Static<typeof CreatedWithdrawal>;
export type WithdrawalListItemView = Static<typeof WithdrawalListItem>;
export type WithdrawalView = Static<typeof Withdrawal>;
