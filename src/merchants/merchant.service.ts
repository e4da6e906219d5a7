import type pg from 'pg';
import { validatePixKey, isValidTaxId, toEmvAscii, type PixKeyType } from '../pix/index.js';
import { withTransaction, type Executor, type Tx } from '../platform/db.js';
import { notFound, validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Cursors, type Page, type PageRequest } from '../platform/pagination.js';
import { createMerchantAccounts, getBalance, getBalances, type Balance } from '../ledger/ledger.js';
import type { Contract, Merchant, MerchantCreate, MerchantPatch } from './merchant.schemas.js';
import {
  insertMerchant, LIST_MERCHANTS_SQL, selectMerchant, updateMerchant, type MerchantColumns, type MerchantRow,
} from './merchant.sql.js';

/** Store name (docs/contract/merchants.md#store): trade, legal, full, user name — null until KYC is approved. */
export function storeName(m: Pick<MerchantRow, 'kyc_status' | 'kyc_trade_name' | 'kyc_legal_name' | 'kyc_full_name' | 'user_name'>): string | null {
  if (m.kyc_status !== 'APPROVED') return null;
  return m.kyc_trade_name || m.kyc_legal_name || m.kyc_full_name || m.user_name;
}

export function toMerchant(m: MerchantRow, balance: Balance): Merchant {
  return {
    id: m.id,
    userName: m.user_name,
    email: m.email,
    kyc: { status: m.kyc_status, tradeName: m.kyc_trade_name, legalName: m.kyc_legal_name, fullName: m.kyc_full_name, taxId: m.kyc_tax_id },
    pixKey: m.pix_key && m.pix_key_type ? { key: m.pix_key, type: m.pix_key_type } : null,
    city: m.city,
    minTicket: m.min_ticket,
    maxTicket: m.max_ticket,
    maxWithdrawal: m.max_withdrawal,
    withdrawalsEnabled: m.withdrawals_enabled,
    chargeFeeFixed: m.charge_fee_fixed,
    chargeFeeBps: m.charge_fee_bps,
    withdrawalFeeFixed: m.withdrawal_fee_fixed,
    suspended: m.suspended,
    createdAt: m.created_at.toISOString(),
    balance,
  };
}

/** A name or city the merchant's BR Codes show must keep a character there (ASCII), or every charge would fail. */
function checkBrCodeText(field: string, value: string | null | undefined): void {
  if (typeof value === 'string' && toEmvAscii(value) === '') throw validationError(field, 'must contain Latin letters, digits or punctuation (shown in BR Codes)');
}

/** Maps the API's camelCase fields to columns, checking what a schema cannot (PIX key, tax id, BR Code text). */
function toColumns(input: MerchantPatch): MerchantColumns {
  checkBrCodeText('userName', input.userName);
  checkBrCodeText('city', input.city);
  for (const name of ['tradeName', 'legalName', 'fullName'] as const) checkBrCodeText(`kyc.${name}`, input.kyc?.[name]);
  const cols: MerchantColumns = {
    user_name: input.userName, email: input.email, city: input.city, suspended: input.suspended,
    min_ticket: input.minTicket, max_ticket: input.maxTicket, max_withdrawal: input.maxWithdrawal,
    withdrawals_enabled: input.withdrawalsEnabled, charge_fee_fixed: input.chargeFeeFixed,
    charge_fee_bps: input.chargeFeeBps, withdrawal_fee_fixed: input.withdrawalFeeFixed,
  };
  if (input.kyc) {
    if (input.kyc.taxId && !isValidTaxId(input.kyc.taxId)) throw validationError('kyc.taxId', 'invalid CPF or CNPJ');
    Object.assign(cols, {
      kyc_status: input.kyc.status, kyc_trade_name: input.kyc.tradeName, kyc_legal_name: input.kyc.legalName,
      kyc_full_name: input.kyc.fullName, kyc_tax_id: input.kyc.taxId,
    });
  }
  if (input.pixKey === null) Object.assign(cols, { pix_key: null, pix_key_type: null });
  else if (input.pixKey) {
    const check = validatePixKey(input.pixKey.type as PixKeyType, input.pixKey.key);
    if (!check.ok) throw validationError('pixKey.key', check.reason);
    Object.assign(cols, { pix_key: check.key, pix_key_type: input.pixKey.type });
  }
  return cols;
}

function checkTickets(min: number, max: number): void {
  if (min > max) throw validationError('maxTicket', `must be >= minTicket (${min})`);
}

export const createMerchant = (pool: pg.Pool, input: MerchantCreate): Promise<Merchant> => withTransaction(pool, (tx) => insertNewMerchant(tx, input));

/** A new merchant and its ledger accounts, in the caller's transaction. */
export async function insertNewMerchant(tx: Tx, input: MerchantCreate): Promise<Merchant> {
  const cols = toColumns(input);
  if ((cols.min_ticket ?? 100) > (cols.max_ticket ?? 100_000_000)) throw validationError('maxTicket', 'must be >= minTicket');
  const row = await insertMerchant(tx, newId('mer'), cols);
  await createMerchantAccounts(tx, row.id);
  return toMerchant(row, { available: 0, pending: 0, blocked: 0 });
}

export async function patchMerchant(pool: pg.Pool, id: string, input: MerchantPatch): Promise<Merchant> {
  const cols = toColumns(input);
  return withTransaction(pool, async (tx) => {
    const current = await selectMerchant(tx, id, true);
    if (!current) throw notFound('Merchant');
    // Checked before the update: the table's CHECK (min_ticket <= max_ticket) would fail it as a 500.
    checkTickets(cols.min_ticket ?? current.min_ticket, cols.max_ticket ?? current.max_ticket);
    const row = (await updateMerchant(tx, id, cols)) ?? current;
    return toMerchant(row, await getBalance(tx, id));
  });
}

export async function getMerchant(db: Executor, id: string): Promise<Merchant> {
  const row = await selectMerchant(db, id);
  if (!row) throw notFound('Merchant');
  return toMerchant(row, await getBalance(db, id));
}

export async function listMerchants(db: Executor, cursors: Cursors, page: PageRequest): Promise<Page<Merchant>> {
  const result = await keysetPage<MerchantRow>(db, cursors, { list: 'admin.merchants' }, { sql: LIST_MERCHANTS_SQL, params: [] }, page);
  const balances = await getBalances(db, result.items.map((m) => m.id));
  const items = result.items.map((m) => toMerchant(m, balances.get(m.id)!));
  return { items, pagination: result.pagination };
}

/** What the merchant may read of its own contract (the dashboard shows fees before a charge or withdrawal). */
export const toContract = (m: MerchantRow): Contract => ({
  chargeFeeFixed: m.charge_fee_fixed,
  chargeFeeBps: m.charge_fee_bps,
  withdrawalFeeFixed: m.withdrawal_fee_fixed,
  maxWithdrawal: m.max_withdrawal,
  withdrawalsEnabled: m.withdrawals_enabled,
  minTicket: m.min_ticket,
  maxTicket: m.max_ticket,
});
