import type { Executor } from '../../platform/db.js';

export interface PayloadKeyRow {
  kid: string;
  public_jwk: Record<string, unknown>;
  /** The private JWK, sealed with ENCRYPTION_KEY. */
  private_jwk: string;
}

export async function selectPayloadKey(db: Executor): Promise<PayloadKeyRow | undefined> {
  const { rows } = await db.query<PayloadKeyRow>('SELECT kid, public_jwk, private_jwk FROM payload_signing_keys');
  return rows[0];
}

/** Keeps the first key ever made: one made at the same moment by another process loses, and both then read the winner. */
export async function insertPayloadKey(db: Executor, key: PayloadKeyRow): Promise<void> {
  await db.query(
    'INSERT INTO payload_signing_keys (kid, public_jwk, private_jwk) VALUES ($1, $2::jsonb, $3) ON CONFLICT DO NOTHING',
    [key.kid, JSON.stringify(key.public_jwk), key.private_jwk],
  );
}
