import { Type, type Static } from 'typebox';
import { ChargeCreateBody } from '../charges/charge.schemas.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

const CHECKOUT_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'] as const;
const Id = Type.String({ minLength: 1, maxLength: 64 });

/** An absolute http(s) URL; the service checks the scheme and that it parses (docs/contract/checkouts.md#checkouts). */
export const PageUrl = Type.String({ minLength: 1, maxLength: 2048 });

export const ItemSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
  unitPrice: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
});
export const Items = Type.Array(ItemSchema, { minItems: 1, maxItems: 50 });
export type Item = Static<typeof ItemSchema>;

const Split = ChargeCreateBody.properties.split;

export const CheckoutCreateBody = Type.Object({
  items: Items,
  customerId: Type.Optional(Id),
  description: Type.Optional(Type.String({ maxLength: 140 })),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  metadata: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 20 })),
  returnUrl: Type.Optional(PageUrl),
  completionUrl: Type.Optional(PageUrl),
  expiresIn: Type.Optional(Type.Integer({ minimum: 300, maximum: 2_592_000 })),
  split: Split,
});
export type CheckoutCreate = Static<typeof CheckoutCreateBody>;

export const CheckoutListQuery = Type.Object({
  status: Type.Optional(StringEnum(CHECKOUT_STATUSES)),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  paymentLinkId: Type.Optional(Id),
  ...PageQuery,
});
export type CheckoutListFilters = Static<typeof CheckoutListQuery>;

export const CheckoutParams = Type.Object({ id: Id });

const customerFields = { id: Type.String(), name: Nullable(Type.String()), taxId: Nullable(Type.String()), email: Type.String() };

const checkoutFields = {
  id: Type.String(),
  status: StringEnum(CHECKOUT_STATUSES),
  amount: Type.Integer(),
  items: Type.Array(ItemSchema),
  description: Nullable(Type.String()),
  externalId: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.String())),
  url: Type.String(),
  returnUrl: Nullable(Type.String()),
  completionUrl: Nullable(Type.String()),
  paymentLinkId: Nullable(Type.String()),
  chargeId: Type.String(),
  brCode: Type.String(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  paidAt: Nullable(Timestamp),
};

/** The create answer and list items: customer as on charge lists (no phone). */
export const CheckoutSchema = Type.Object({ ...checkoutFields, customer: Type.Optional(Type.Object(customerFields)) });
/** GET /checkouts/{id}, the refund answer and event data: the customer with phone, as `check` shows it. */
export const CheckoutDetailSchema = Type.Object({
  ...checkoutFields, customer: Type.Optional(Type.Object({ ...customerFields, phone: Nullable(Type.String()) })),
});
export type Checkout = Static<typeof CheckoutSchema> & { customer?: { phone?: string | null } };
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
