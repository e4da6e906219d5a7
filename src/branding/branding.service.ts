import type { MerchantRow } from '../merchants/merchant.sql.js';
import { storeName } from '../merchants/merchant.service.js';
import type { Executor } from '../platform/db.js';
import { validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Branding, BrandingPut } from './branding.schemas.js';
import { selectBranding, upsertBranding, type BrandingRow } from './branding.sql.js';

export const LOGO_MAX_BYTES = 102_400;
/** Where the pay and link pages load the logo from: Pixgate itself, never a third party (docs/contract/checkouts.md#branding). */
export const logoUrl = (publicUrl: string, logoId: string) => `${publicUrl}/pay/logos/${logoId}`;

export function toBranding(row: BrandingRow | undefined, merchant: MerchantRow, publicUrl: string): Branding {
  return {
    displayName: row?.display_name ?? storeName(merchant),
    primaryColor: row?.primary_color ?? null,
    logoUrl: row?.logo_id ? logoUrl(publicUrl, row.logo_id) : null,
  };
}

/** A PNG or JPEG data URL whose bytes are what it says, at most 100 KB. */
function readLogo(dataUrl: string): { type: string; bytes: Buffer } {
  const m = /^data:(image\/png|image\/jpeg);base64,([A-Za-z0-9+/]+={0,2})$/.exec(dataUrl);
  if (!m) throw validationError('logo', 'must be a data URL of a PNG or JPEG image');
  const bytes = Buffer.from(m[2]!, 'base64');
  if (bytes.length > LOGO_MAX_BYTES) throw validationError('logo', 'must be at most 100 KB');
  const png = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const jpeg = bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]));
  if (m[1] === 'image/png' ? !png : !jpeg) throw validationError('logo', `is not a ${m[1] === 'image/png' ? 'PNG' : 'JPEG'} image`);
  return { type: m[1]!, bytes };
}

export async function getBranding(db: Executor, merchant: MerchantRow, publicUrl: string): Promise<Branding> {
  return toBranding(await selectBranding(db, merchant.id), merchant, publicUrl);
}

/**
 * The branding a PUT of `input` would leave, written nowhere: the dashboard's preview (docs/checkouts.md#previews).
 * The rules of putBranding (left out keeps, null clears, the logo's bytes checked); a new logo is shown from its data URL.
 */
export async function draftBranding(db: Executor, merchantId: string, input: BrandingPut): Promise<BrandingRow & { logo_data_url: string | null }> {
  const row = await selectBranding(db, merchantId);
  if (typeof input.logo === 'string') readLogo(input.logo);
  return {
    display_name: input.displayName === undefined ? row?.display_name ?? null : input.displayName,
    primary_color: input.primaryColor === undefined ? row?.primary_color ?? null : input.primaryColor?.toLowerCase() ?? null,
    logo_id: input.logo === undefined ? row?.logo_id ?? null : null,
    logo_data_url: typeof input.logo === 'string' ? input.logo : null,
  };
}

/** PUT /me/branding: fields left out keep their value; null clears one (the name falls back to the store name). */
export async function putBranding(db: Executor, merchant: MerchantRow, input: BrandingPut, publicUrl: string): Promise<Branding> {
  const logo = typeof input.logo === 'string' ? { id: newId('logo'), ...readLogo(input.logo) } : null;
  const row = await upsertBranding(db, merchant.id, {
    keepName: input.displayName === undefined, displayName: input.displayName ?? null,
    keepColor: input.primaryColor === undefined, primaryColor: input.primaryColor?.toLowerCase() ?? null,
    keepLogo: input.logo === undefined, logo,
  });
  return toBranding(row, merchant, publicUrl);
}
