import { getBalance } from '../ledger/ledger.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { validatePixKey } from '../pix/index.js';
import { isUniqueViolation, withStatementRetried, withTransaction, type Executor, type TransactionHook, type Tx } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Page } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import { upsertCallbackEndpoint } from '../webhooks/callback-endpoint.service.js';
import { registrableUrl } from '../webhooks/registrable-url.rules.js';
import { reservePosting } from './withdrawal.ledger.js';
import { processJob } from './withdrawal-processing.service.js';
import { starterFor } from './withdrawal-start.service.js';
import { withdrawalFee } from './withdrawal.rules.js';
import type { CreatedWithdrawalView, CreateWithdrawalInput, ListWithdrawalsInput, WithdrawalQuoteView } from './withdrawal.schemas.js';
import {
  insertWithdrawal, listWithdrawalsQuery, ONE_IN_PROGRESS, selectMerchantWithdrawal, type Inserted, type NewWithdrawal, type WithdrawalRow,
} from './withdrawal.sql.js';
import { toCreatedView } from './withdrawal.view.js';

const inProgress = () => new AppError('WITHDRAWAL_IN_PROGRESS', 'Another withdrawal is already PENDING or PROCESSING for this merchant');

/** Field rules a schema cannot express: the key's format by type, the callback URL's rules and DNS answer. */
async function checkFields(rt: Runtime, input: CreateWithdrawalInput) {
  const key = validatePixKey(input.pixKeyType, input.pixKey);
  if (!key.ok) throw validationError('pixKey', key.reason);
  const callbackUrl = input.clientCallbackUrl === undefined
    ? null
    : await registrableUrl(input.clientCallbackUrl, { field: 'clientCallbackUrl', allowPrivate: rt.config.webhookAllowPrivate });
  return { pixKey: key.key, callbackUrl };
}

/**
 * POST /withdrawals. Checks run in the order docs/contract/withdrawals.md#withdrawal-checks gives: fields → withdrawals disabled →
 * one in progress → merchant limit → balance. The withdrawal row, the reservation of amount + fee, the
 * callback endpoint, the processing job (unless this process starts it itself: withdrawal-start.service.ts)
 * and the idempotent answer (`hook`) commit together — in one statement when there is no endpoint to upsert
 * and no answer to store — which is why the command returns the API view. Processing starts after the commit.
 */
export async function createWithdrawal(
  rt: Runtime, merchant: MerchantRow, input: CreateWithdrawalInput, hook?: TransactionHook<CreatedWithdrawalView>,
): Promise<CreatedWithdrawalView> {
  const { pixKey, callbackUrl } = await checkFields(rt, input);
  if (!merchant.withdrawals_enabled) throw new AppError('FORBIDDEN', 'Withdrawals are temporarily blocked for this merchant');
  const starter = starterFor(rt.pool);
  const w: NewWithdrawal = {
    id: newId('wd'), merchant_id: merchant.id, amount: input.amount, fee: withdrawalFee(merchant, input.amount),
    pix_key: pixKey, pix_key_type: input.pixKeyType, description: input.description ?? null,
    tax_id: input.taxId ?? null, callback_url: callbackUrl,
  };
  const insert = async (db: Executor) => {
    let done: Inserted;
    try {
      done = await insertWithdrawal(db, w, {
        withinLimit: input.amount <= merchant.max_withdrawal, reserve: reservePosting(w),
        job: starter ? null : { task: processJob.task, key: processJob.key(w.id) },
      });
    } catch (err) {
      // Two requests that both passed the read meet at the unique index: the second is told what the read would have said.
      if (isUniqueViolation(err, ONE_IN_PROGRESS)) throw inProgress();
      throw err;
    }
    if (done.busy) throw inProgress();
    if (!done.row) throw validationError('amount', `must be <= ${merchant.max_withdrawal}`);
    if (callbackUrl) await upsertCallbackEndpoint(db as Tx, merchant.id, callbackUrl);
    return toCreatedView(done.row);
  };
  const view = callbackUrl ? await withTransaction(rt.pool, insert, hook) : await withStatementRetried(rt.pool, insert, hook);
  starter?.start(view.id);
  return view;
}

/** GET /withdrawals/quote: the fee the insert would store, and the balance it would come from. */
export async function quoteWithdrawal(rt: Runtime, merchant: MerchantRow, amount: number): Promise<WithdrawalQuoteView> {
  const fee = withdrawalFee(merchant, amount);
  const { available } = await getBalance(rt.pool, merchant.id);
  return { amount, fee, total: amount + fee, available };
}

export async function getWithdrawal(rt: Runtime, merchantId: string, id: string): Promise<WithdrawalRow> {
  const row = await selectMerchantWithdrawal(rt.pool, merchantId, id);
  if (!row) throw notFound('Withdrawal');
  return row;
}

export function listWithdrawals(rt: Runtime, merchantId: string, query: ListWithdrawalsInput): Promise<Page<WithdrawalRow>> {
  const status = query.status ?? null;
  return keysetPage<WithdrawalRow>(rt.pool, rt.cursors, { merchantId, list: 'withdrawals', status }, listWithdrawalsQuery(merchantId, status), query);
}
