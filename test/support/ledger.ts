import type pg from 'pg';
import { FEE_REVENUE, merchantAccount, post, PSP_CLEARING } from '../../src/ledger/ledger.js';
import { withTransaction } from '../../src/platform/db.js';

/** Credits a merchant's available balance straight through the ledger, as if a payment had arrived. */
export const fund = (pool: pg.Pool, merchantId: string, cents: number) => withTransaction(pool, (tx) => post(tx, {
  kind: 'TEST_FUNDING', reference: 'test',
  entries: [{ account: PSP_CLEARING, amount: -cents }, { account: merchantAccount(merchantId, 'available'), amount: cents }],
}));

/** Debits a merchant's available balance (to fee revenue): fails with INSUFFICIENT_BALANCE like any debit. */
export const charge = (pool: pg.Pool, merchantId: string, cents: number) => withTransaction(pool, (tx) => post(tx, {
  kind: 'TEST_DEBIT', reference: 'test',
  entries: [{ account: merchantAccount(merchantId, 'available'), amount: -cents }, { account: FEE_REVENUE, amount: cents }],
}));
