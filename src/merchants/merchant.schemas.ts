import { Type, type Static } from 'typebox';
import { PIX_KEY_TYPES } from '../pix/index.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const NonNegativeCents = Type.Integer({ minimum: 0, maximum: 100_000_000_000 });

export const Kyc = Type.Object({
  status: Type.Optional(StringEnum(['PENDING', 'APPROVED', 'REJECTED'] as const)),
  tradeName: Type.Optional(Nullable(Text(120))),
  legalName: Type.Optional(Nullable(Text(120))),
  fullName: Type.Optional(Nullable(Text(120))),
  taxId: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{11}([0-9]{3})?$' }))),
});

export const PixKey = Type.Object({
  key: Text(140),
  type: StringEnum(PIX_KEY_TYPES),
});

const contract = {
  minTicket: Type.Optional(NonNegativeCents),
  maxTicket: Type.Optional(NonNegativeCents),
  maxWithdrawal: Type.Optional(NonNegativeCents),
  withdrawalsEnabled: Type.Optional(Type.Boolean()),
  chargeFeeFixed: Type.Optional(NonNegativeCents),
  chargeFeeBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  withdrawalFeeFixed: Type.Optional(NonNegativeCents),
};

export const MerchantCreateBody = Type.Object({
  userName: Text(120),
  email: Type.String({ format: 'email', maxLength: 254 }),
  kyc: Type.Optional(Kyc),
  pixKey: Type.Optional(Nullable(PixKey)),
  city: Type.Optional(Text(60)),
  ...contract,
});

export const MerchantPatchBody = Type.Object({
  userName: Type.Optional(Text(120)),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  kyc: Type.Optional(Kyc),
  pixKey: Type.Optional(Nullable(PixKey)),
  city: Type.Optional(Text(60)),
  suspended: Type.Optional(Type.Boolean()),
  ...contract,
});

export const BalanceSchema = Type.Object({
  available: Type.Integer(),
  pending: Type.Integer(),
  blocked: Type.Integer(),
});

export const MerchantSchema = Type.Object({
  id: Type.String(),
  userName: Type.String(),
  email: Type.String(),
  kyc: Type.Object({
    status: Type.String(),
    tradeName: Nullable(Type.String()),
    legalName: Nullable(Type.String()),
    fullName: Nullable(Type.String()),
    taxId: Nullable(Type.String()),
  }),
  pixKey: Nullable(Type.Object({ key: Type.String(), type: Type.String() })),
  city: Type.String(),
  minTicket: Type.Integer(),
  maxTicket: Type.Integer(),
  maxWithdrawal: Type.Integer(),
  withdrawalsEnabled: Type.Boolean(),
  chargeFeeFixed: Type.Integer(),
  chargeFeeBps: Type.Integer(),
  withdrawalFeeFixed: Type.Integer(),
  suspended: Type.Boolean(),
  createdAt: Timestamp,
  balance: BalanceSchema,
});

export type MerchantCreate = Static<typeof MerchantCreateBody>;
export type MerchantPatch = Static<typeof MerchantPatchBody>;
export type Merchant = Static<typeof MerchantSchema>;

/** `GET /me/contract`: the merchant's own terms, as the operator API names them (docs/contract/merchants.md#merchant-terms). */
export const ContractSchema = Type.Object({
  chargeFeeFixed: Type.Integer(),
  chargeFeeBps: Type.Integer(),
  withdrawalFeeFixed: Type.Integer(),
  maxWithdrawal: Type.Integer(),
  withdrawalsEnabled: Type.Boolean(),
  minTicket: Type.Integer(),
  maxTicket: Type.Integer(),
});
export type Contract = Static<typeof ContractSchema>;
