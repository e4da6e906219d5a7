import { Type, type Static } from 'typebox';
import { ROLES } from '../auth/permission.rules.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

export const RoleSchema = StringEnum(ROLES);
const Email = Type.String({ format: 'email', maxLength: 254 });
const PersonName = Type.String({ minLength: 1, maxLength: 140 });
/** docs/contract/access.md#passwords: 12 to 128 characters (and not the e-mail, checked by the service). */
export const Password = Type.String({ minLength: 12, maxLength: 128 });

export const UserSchema = Type.Object({
  id: Type.String({ examples: ['usr_3kTMd92jf0aKd93jfKs0aB'] }),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  totpEnabled: Type.Boolean(),
  createdAt: Timestamp,
  lastLoginAt: Nullable(Timestamp),
});
export type User = Static<typeof UserSchema>;

export const InviteBody = Type.Object({ email: Email, name: PersonName, role: RoleSchema });
export type InviteInput = Static<typeof InviteBody>;

export const InvitedSchema = Type.Object({
  user: UserSchema,
  invitation: Type.Object({
    url: Type.String({ description: '<PUBLIC_URL>/dashboard/invite/<token>: single use, valid 72 h; pass it on to the invitee' }),
    expiresAt: Timestamp,
  }),
});
export type Invited = Static<typeof InvitedSchema>;

export const UserIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const UserListQuery = Type.Object(PageQuery);
export const RoleBody = Type.Object({ role: RoleSchema });

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });
export const AcceptBody = Type.Object({ password: Password, name: Type.Optional(PersonName) });

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  totp: Type.Optional(Type.String({ maxLength: 16 })),
});
export const LoginSchema = Type.Object({
  token: Type.String({ description: 'JWT: send as Authorization: Bearer <token>; also set as the pxg_session cookie' }),
  expiresAt: Timestamp,
  user: UserSchema,
  merchant: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
});
export type LoginAnswer = Static<typeof LoginSchema>;

export const PasswordBody = Type.Object({ currentPassword: Type.String({ minLength: 1, maxLength: 1024 }), newPassword: Password });
export const CodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 16 }) });
export const TotpEnrolmentSchema = Type.Object({
  secret: Type.String({ description: 'base32; shown once' }),
  otpauthUrl: Type.String(),
  qrImageBase64: Type.String({ description: 'PNG QR code of otpauthUrl, as a data URL' }),
});
export type TotpEnrolment = Static<typeof TotpEnrolmentSchema>;
