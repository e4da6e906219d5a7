import { Type, type Static } from 'typebox';
import { ChargeCreateBody } from '../charges/charge.schemas.js';
import { PageUrl } from '../checkouts/checkout.schemas.js';
import { Items, ItemSchema } from '../checkouts/object/checkout.schemas.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

export const CUSTOMER_FIELDS = ['name', 'email', 'taxId', 'phone'] as const;
export type CustomerField = (typeof CUSTOMER_FIELDS)[number];
const Cents = Type.Integer({ minimum: 100, maximum: 100_000_000 });
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const PaymentLinkCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  items: Type.Optional(Items),
  amount: Type.Optional(Cents),
  amountRange: Type.Optional(Type.Object({ min: Cents, max: Cents })),
  description: Type.Optional(Type.String({ maxLength: 140 })),
  customerFields: Type.Optional(Type.Array(StringEnum(CUSTOMER_FIELDS), { uniqueItems: true, maxItems: 4 })),
  maxPayments: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  activeUntil: Type.Optional(Type.String({ format: 'date-time' })),
  completionUrl: Type.Optional(PageUrl),
  split: ChargeCreateBody.properties.split,
  checkoutExpiresIn: Type.Optional(Type.Integer({ minimum: 300, maximum: 86_400 })),
});
export type PaymentLinkCreate = Static<typeof PaymentLinkCreateBody>;

export const PaymentLinkPatchBody = Type.Object({ active: Type.Boolean() });
export const PaymentLinkParams = Type.Object({ id: Id });
export const PaymentLinkListQuery = Type.Object({
  status: Type.Optional(StringEnum(['ACTIVE', 'INACTIVE'] as const)),
  ...PageQuery,
});
export type PaymentLinkListFilters = Static<typeof PaymentLinkListQuery>;

export const PaymentLinkSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: StringEnum(['ACTIVE', 'INACTIVE'] as const),
  items: Nullable(Type.Array(ItemSchema)),
  amount: Nullable(Type.Integer()),
  amountRange: Nullable(Type.Object({ min: Type.Integer(), max: Type.Integer() })),
  description: Nullable(Type.String()),
  customerFields: Type.Array(StringEnum(CUSTOMER_FIELDS)),
  maxPayments: Nullable(Type.Integer()),
  activeUntil: Nullable(Timestamp),
  completionUrl: Nullable(Type.String()),
  url: Type.String(),
  payments: Type.Integer(),
  amountReceived: Type.Integer(),
  createdAt: Timestamp,
});
export type PaymentLink = Static<typeof PaymentLinkSchema>;

/** GET /payment-links/{id}/qr-code: what the dashboard prints. */
export const PaymentLinkQrCodeSchema = Type.Object({
  url: Type.String(),
  /** A PNG data URL of the QR code of `url` (error correction M), as a charge's `imageBase64`. */
  imageBase64: Type.String(),
});
export type PaymentLinkQrCode = Static<typeof PaymentLinkQrCodeSchema>;

/** POST /l/{id}/checkouts: the payer's amount (range links) and the customer fields the link asks for. */
export const LinkCheckoutBody = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 300 })),
  taxId: Type.Optional(Type.String({ maxLength: 30 })),
  phone: Type.Optional(Type.String({ maxLength: 30 })),
});
export type LinkCheckoutInput = Static<typeof LinkCheckoutBody>;

/** The public answer of POST /l/{id}/checkouts: what a payer needs to pay, nothing of the merchant's records. */
export const PublicCheckoutSchema = Type.Object({
  id: Type.String(), url: Type.String(), status: Type.String(), amount: Type.Integer(), brCode: Type.String(), expiresAt: Timestamp,
});
