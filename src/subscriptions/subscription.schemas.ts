import { Type, type Static } from 'typebox';
import { ChargeListItemSchema } from '../charges/charge.schemas.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';
import { FREQUENCIES, RETRY_POLICIES } from './cycle.rules.js';

// The subscription's API shapes (docs/contract/subscriptions.md#subscription-object).

export const SUBSCRIPTION_STATUSES = ['CREATED', 'ACTIVE', 'REJECTED', 'EXPIRED', 'CANCELLED', 'COMPLETED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const JOURNEYS = ['QR', 'QR_WITH_PAYMENT', 'PUSH'] as const;
export type Journey = (typeof JOURNEYS)[number];
export const ENDED_BY = ['MERCHANT', 'PAYER'] as const;
export type EndedBy = (typeof ENDED_BY)[number];

const Id = Type.String({ minLength: 1, maxLength: 64 });
/** A calendar day; the service checks it is a real one. */
const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });
const Cents = Type.Integer({ minimum: 100, maximum: 100_000_000 });

export const SubscriptionCreateBody = Type.Object({
  customerId: Id,
  amount: Type.Optional(Cents),
  minAmount: Type.Optional(Cents),
  frequency: StringEnum(FREQUENCIES),
  startDate: Day,
  endDate: Type.Optional(Day),
  contract: Type.String({ minLength: 1, maxLength: 35 }),
  description: Type.Optional(Type.String({ maxLength: 35 })),
  retryPolicy: Type.Optional(StringEnum(RETRY_POLICIES)),
  journey: StringEnum(JOURNEYS),
  firstPayment: Type.Optional(Type.Object({ amount: Cents })),
  payerAccount: Type.Optional(Type.Object({
    ispb: Type.String({ pattern: '^[0-9]{8}$' }),
    branch: Type.String({ pattern: '^[0-9]{1,4}$' }),
    account: Type.String({ pattern: '^[0-9]{1,20}$' }),
  })),
  requestExpiresIn: Type.Optional(Type.Integer({ minimum: 3600, maximum: 2_592_000 })),
});
export type SubscriptionCreate = Static<typeof SubscriptionCreateBody>;

export const SubscriptionListQuery = Type.Object({
  status: Type.Optional(StringEnum(SUBSCRIPTION_STATUSES)),
  ...PageQuery,
});
export type SubscriptionListFilters = Static<typeof SubscriptionListQuery>;

export const SubscriptionParams = Type.Object({ id: Id });
export const SubscriptionChargesQuery = Type.Object({ ...PageQuery });

/** A variable-amount subscription's cycle charge, asked for by the merchant. */
export const CycleChargeBody = Type.Object({ amount: Cents, dueDate: Day });
export type CycleChargeCreate = Static<typeof CycleChargeBody>;

export const SubscriptionSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(SUBSCRIPTION_STATUSES),
  journey: StringEnum(JOURNEYS),
  customer: Type.Object({ id: Type.String(), name: Nullable(Type.String()), taxId: Nullable(Type.String()), email: Type.String() }),
  amount: Nullable(Type.Integer()),
  minAmount: Nullable(Type.Integer()),
  frequency: StringEnum(FREQUENCIES),
  startDate: Type.String({ format: 'date' }),
  endDate: Nullable(Type.String({ format: 'date' })),
  contract: Type.String(),
  description: Nullable(Type.String()),
  retryPolicy: StringEnum(RETRY_POLICIES),
  /** The QR journeys while CREATED, in the create answer and GET /subscriptions/{id}; null otherwise. */
  brCode: Nullable(Type.String()),
  imageBase64: Nullable(Type.String()),
  /** Journey 3: the immediate charge paid with the authorization; null on the other journeys. */
  firstCharge: Nullable(ChargeListItemSchema),
  nextDueDate: Nullable(Type.String({ format: 'date' })),
  createdAt: Timestamp,
  authorizedAt: Nullable(Timestamp),
  endedAt: Nullable(Timestamp),
  endedBy: Nullable(StringEnum(ENDED_BY)),
});
export type Subscription = Static<typeof SubscriptionSchema>;
