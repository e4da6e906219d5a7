import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { KEY_ROLES } from './permission.rules.js';

// What a key may do (docs/contract/access.md#key-roles): FULL is every merchant route but API keys and the team; the others, that row of the roles table.
export const KeyRole = StringEnum(KEY_ROLES);
export const CreatedBy = Nullable(Type.String({ description: 'The user who made the key; null for the operator\'s keys' }));
export const CreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  // Default: the widest the maker may mint (OWNER: FULL, DEVELOPER: DEVELOPER).
  role: Type.Optional(KeyRole),
});
export const IssuedKey = Type.Object({
  id: Type.String(), name: Type.String(), key: Type.String({ description: 'pxg_...; shown once' }), last4: Type.String(),
  role: KeyRole, createdBy: CreatedBy, createdAt: Timestamp,
});
export const KeyView = Type.Object({
  id: Type.String(), name: Type.String(), last4: Type.String(), role: KeyRole, createdBy: CreatedBy, createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp), revokedAt: Nullable(Timestamp),
});
