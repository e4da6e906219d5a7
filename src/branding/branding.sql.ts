import type { Executor } from '../platform/db.js';

export interface BrandingRow {
  display_name: string | null;
  primary_color: string | null;
  logo_id: string | null;
}

export async function selectBranding(db: Executor, merchantId: string): Promise<BrandingRow | undefined> {
  const { rows } = await db.query<BrandingRow>(
    'SELECT display_name, primary_color, logo_id FROM merchant_branding WHERE merchant_id = $1', [merchantId]);
  return rows[0];
}

/**
 * One statement: a field left undefined keeps its value (`keep*`), null clears it. A new logo takes a new id,
 * so a logo URL always names the same bytes.
 */
export async function upsertBranding(db: Executor, merchantId: string, b: {
  keepName: boolean; displayName: string | null; keepColor: boolean; primaryColor: string | null;
  keepLogo: boolean; logo: { id: string; type: string; bytes: Buffer } | null;
}): Promise<BrandingRow> {
  const { rows } = await db.query<BrandingRow>(
    `INSERT INTO merchant_branding AS b (merchant_id, display_name, primary_color, logo_id, logo_type, logo)
     VALUES ($1, $3, $5, $7, $8, $9)
     ON CONFLICT (merchant_id) DO UPDATE SET
       display_name = CASE WHEN $2 THEN b.display_name ELSE $3 END,
       primary_color = CASE WHEN $4 THEN b.primary_color ELSE $5 END,
       logo_id = CASE WHEN $6 THEN b.logo_id ELSE $7 END,
       logo_type = CASE WHEN $6 THEN b.logo_type ELSE $8 END,
       logo = CASE WHEN $6 THEN b.logo ELSE $9 END,
       updated_at = now_ms()
     RETURNING display_name, primary_color, logo_id`,
    [merchantId, b.keepName, b.displayName, b.keepColor, b.primaryColor, b.keepLogo, b.logo?.id ?? null, b.logo?.type ?? null, b.logo?.bytes ?? null],
  );
  return rows[0]!;
}

export async function selectLogo(db: Executor, logoId: string): Promise<{ logo_type: string; logo: Buffer } | undefined> {
  const { rows } = await db.query<{ logo_type: string; logo: Buffer }>('SELECT logo_type, logo FROM merchant_branding WHERE logo_id = $1', [logoId]);
  return rows[0];
}
