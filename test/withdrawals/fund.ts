import type pg from 'pg';
import { merchantAccount, post, PSP_CLEARING } from '../../src/ledger/ledger.js';
import { withTransaction } from '../../src/platform/db.js';

/** Credits a merchant's available balance straight through the ledger (no charges flow is relied on). */
export async function fund(pool: pg.Pool, merchantId: string, cents: number): Promise<void> {
  await withTransaction(pool, (tx) =>
    post(tx, {
      kind: 'TEST_FUNDING',
      reference: 'test',
      entries: [{ account: PSP_CLEARING, amount: -cents }, { account: merchantAccount(merchantId, 'available'), amount: cents }],
    }),
  );
}
