import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { issueApiKey } from '../auth/api-key.service.js';
import { countMerchants, lockTransactionWide } from '../merchants/merchant.sql.js';
import { insertNewMerchant } from '../merchants/merchant.service.js';
import { withTransaction } from '../platform/db.js';
import { newId, randomBase62 } from '../platform/ids.js';
import { hashPassword } from '../auth/password.crypto.js';
import { insertUser, setPassword } from '../user/user.sql.js';

const SEED_LOCK = 7_263_514_002;
export const DEMO_OWNER_EMAIL = 'demo@pixgate.local';

export interface SeededDemo {
  merchantId: string;
  apiKey: string;
  /** The demo merchant's OWNER (docs/contract/running.md#first-start): its password is generated and shown once. */
  owner: { email: string; password: string };
}

/**
 * On a fresh database, creates a demo merchant (KYC approved, random PIX key on file), one API key
 * and its OWNER dashboard user, so a newcomer can create a charge and log in at once. Null when
 * merchants already exist.
 */
export async function seedDemoMerchant(pool: pg.Pool): Promise<SeededDemo | null> {
  const password = randomBase62(20);
  // Hashed before the transaction: ~100 ms of CPU is not spent holding a connection and the lock.
  const passwordHash = await hashPassword(password);
  // One transaction: the merchant never exists without its key and owner, and concurrent first starts queue on the lock.
  return withTransaction(pool, async (tx) => {
    await lockTransactionWide(tx, SEED_LOCK);
    if ((await countMerchants(tx)) > 0) return null;
    const merchant = await insertNewMerchant(tx, {
      userName: 'demo',
      email: 'demo@example.com',
      kyc: { status: 'APPROVED', tradeName: 'Pixgate Demo Store' },
      pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() },
    });
    const key = await issueApiKey(tx, merchant.id);
    const owner = await insertUser(tx, { id: newId('usr'), merchantId: merchant.id, email: DEMO_OWNER_EMAIL, name: 'Demo Owner', role: 'OWNER' });
    await setPassword(tx, owner.id, passwordHash);
    return { merchantId: merchant.id, apiKey: key.key, owner: { email: DEMO_OWNER_EMAIL, password } };
  });
}
