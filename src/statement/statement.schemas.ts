import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

export const STATEMENT_ACCOUNTS = ['available', 'pending', 'blocked'] as const;
export type StatementAccount = (typeof STATEMENT_ACCOUNTS)[number];

/** Line types (docs/contract/statement.md#line-types); `pending` and `blocked` carry the counter-lines of the same names. */
export const LINE_TYPES = [
  'CHARGE_PAID', 'SPLIT_RECEIVED', 'REFUND', 'REFUND_REVERSED', 'WITHDRAWAL', 'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_RETURNED',
  'DISPUTE_BLOCKED', 'DISPUTE_RELEASED', 'DISPUTE_RETURNED',
] as const;
export type LineType = (typeof LINE_TYPES)[number];

const Range = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 time, inclusive' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 time, exclusive' })),
};
const Account = Type.Optional(StringEnum(STATEMENT_ACCOUNTS));

export const StatementQuery = Type.Object({ ...Range, account: Account, ...PageQuery });
export type StatementInput = Static<typeof StatementQuery>;

export const CsvQuery = Type.Object({ ...Range, account: Account });
export type CsvInput = Static<typeof CsvQuery>;

export const OfxQuery = Type.Object({ ...Range });
export type OfxInput = Static<typeof OfxQuery>;

export const DailyQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'YYYY-MM-DD (America/Sao_Paulo), inclusive; default: 29 days before `to`' })),
  to: Type.Optional(Type.String({ description: 'YYYY-MM-DD (America/Sao_Paulo), inclusive; default: today' })),
});
export type DailyInput = Static<typeof DailyQuery>;

const Id = Nullable(Type.String());

export const StatementLine = Type.Object({
  id: Type.String({ examples: ['stl_00000000002aQ2v1kq3ZSmC8cR1u0LJ4xw'] }),
  createdAt: Timestamp,
  account: StringEnum(STATEMENT_ACCOUNTS),
  type: StringEnum(LINE_TYPES),
  amount: Type.Integer({ description: 'Signed cents: positive adds to the account' }),
  balanceAfter: Type.Integer({ description: 'The account balance right after this line' }),
  fee: Type.Integer({ description: 'The charge or withdrawal fee this line bears; 0 otherwise' }),
  chargeId: Id,
  refundId: Id,
  withdrawalId: Id,
  disputeId: Id,
  end2endId: Id,
  description: Type.String(),
});
export type StatementLineView = Static<typeof StatementLine>;

export const DailySummary = Type.Object({
  date: Type.String({ examples: ['2026-11-22'] }),
  opening: Type.Integer(),
  credits: Type.Integer({ minimum: 0 }),
  debits: Type.Integer({ minimum: 0 }),
  closing: Type.Integer(),
});
export type DailySummaryView = Static<typeof DailySummary>;
