import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { issueApiKey } from '../auth/api-keys.js';
import { countMerchants } from '../merchants/merchant.sql.js';
import { createMerchant } from '../merchants/merchant.service.js';

const SEED_LOCK = 7_263_514_002;

/**
 * On a fresh database, creates a demo merchant (KYC approved, random PIX key on file) and returns one
 * API key for it, so a newcomer can create a charge at once. Null when merchants already exist.
 */
export async function seedDemoMerchant(pool: pg.Pool): Promise<{ merchantId: string; apiKey: string } | null> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SEED_LOCK]);
    if ((await countMerchants(client)) > 0) return null;
    const merchant = await createMerchant(pool, {
      userName: 'demo',
      email: 'demo@example.com',
      kyc: { status: 'APPROVED', tradeName: 'Pixgate Demo Store' },
      pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
    });
    const key = await issueApiKey(pool, merchant.id);
    return { merchantId: merchant.id, apiKey: key.key };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [SEED_LOCK]).catch(() => {});
    client.release();
  }
}
