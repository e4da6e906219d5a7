import { Type, type Static } from 'typebox';
import { Nullable } from '../platform/http/envelope.js';

/** A data URL of a PNG or JPEG of at most 100 KB decoded (the service checks the bytes). */
const LOGO_DATA_URL_MAX = 'data:image/jpeg;base64,'.length + Math.ceil(102_400 / 3) * 4;

export const BrandingPutBody = Type.Object({
  displayName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 60 }))),
  primaryColor: Type.Optional(Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }))),
  logo: Type.Optional(Nullable(Type.String({ maxLength: LOGO_DATA_URL_MAX }))),
});
export type BrandingPut = Static<typeof BrandingPutBody>;

export const BrandingSchema = Type.Object({
  /** The name the public pages show: the one set here, else the store name. */
  displayName: Nullable(Type.String()),
  primaryColor: Nullable(Type.String()),
  /** Where Pixgate serves the logo (`<PUBLIC_URL>/pay/logos/<id>`), or null. */
  logoUrl: Nullable(Type.String()),
});
export type Branding = Static<typeof BrandingSchema>;
