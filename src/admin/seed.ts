import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { issueApiKey } from '../auth/api-keys.js';
import { countMerchants } from '../merchants/merchant.sql.js';
import { insertNewMerchant } from '../merchants/merchant.service.js';
import { withTransaction } from '../platform/db.js';

const SEED_LOCK = 7_263_514_002;

/**
 * On a fresh database, creates a demo merchant (KYC approved, random PIX key on file) and returns one
 * API key for it, so a newcomer can create a charge at once. Null when merchants already exist.
 */
export async function seedDemoMerchant(pool: pg.Pool): Promise<{ merchantId: string; apiKey: string } | null> {
  // One transaction: the merchant never exists without its key, and concurrent first starts queue on the lock.
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
    if ((await countMerchants(tx)) > 0) return null;
    const merchant = await insertNewMerchant(tx, {
      userName: 'demo',
      email: 'demo@example.com',
      kyc: { status: 'APPROVED', tradeName: 'Pixgate Demo Store' },
      pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
    });
    const key = await issueApiKey(tx, merchant.id);
    return { merchantId: merchant.id, apiKey: key.key };
  });
}
