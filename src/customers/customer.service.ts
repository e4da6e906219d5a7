import type pg from 'pg';
import { isValidCnpj, isValidCpf } from '../pix/index.js';
import { isUniqueViolation, withStatement, type Executor, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Cursors, type Page, type PageRequest } from '../platform/pagination.js';
import type { Customer, CustomerCreate, CustomerListFilters } from './customer.schemas.js';
import {
  ACTIVE_TAX_ID_INDEX, insertCustomer, listCustomersQuery, selectActiveCustomer, softDeleteCustomer, type CustomerRow,
} from './customer.sql.js';

export function toCustomer(row: CustomerRow): Customer {
  return { id: row.id, email: row.email, name: row.name, taxId: row.tax_id, phone: row.phone, createdAt: row.created_at.toISOString() };
}

/** CPF and CNPJ are told apart by length and must carry valid check digits (docs/contract/customers.md#customer-tax-id). */
export function checkTaxId(taxId: string): void {
  if (!/^(\d{11}|\d{14})$/.test(taxId)) throw validationError('taxId', 'must be 11 (CPF) or 14 (CNPJ) digits');
  if (taxId.length === 11 ? !isValidCpf(taxId) : !isValidCnpj(taxId)) {
    throw validationError('taxId', taxId.length === 11 ? 'invalid CPF' : 'invalid CNPJ');
  }
}

export async function createCustomer(
  pool: pg.Pool, merchantId: string, input: CustomerCreate, hook?: TransactionHook<Customer>,
): Promise<Customer> {
  if (input.taxId !== undefined) checkTaxId(input.taxId);
  return withStatement(pool, async (db) => {
    try {
      const row = await insertCustomer(db, {
        id: newId('cust'), merchant_id: merchantId, email: input.email,
        name: input.name ?? null, tax_id: input.taxId ?? null, phone: input.phone ?? null,
      });
      return toCustomer(row);
    } catch (err) {
      // The partial unique index decides, not a prior read: two concurrent creates cannot both pass.
      if (isUniqueViolation(err, ACTIVE_TAX_ID_INDEX)) throw new AppError('CONFLICT', 'taxId: already registered for an active customer');
      throw err;
    }
  }, hook);
}

export async function getCustomer(db: Executor, merchantId: string, id: string): Promise<Customer> {
  const row = await selectActiveCustomer(db, merchantId, id);
  if (!row) throw notFound('Customer');
  return toCustomer(row);
}

export async function deleteCustomer(db: Executor, merchantId: string, id: string): Promise<void> {
  if (!(await softDeleteCustomer(db, merchantId, id))) throw notFound('Customer');
}

export async function listCustomers(
  db: Executor, cursors: Cursors, merchantId: string, filters: CustomerListFilters,
): Promise<Page<Customer>> {
  const { id, email, taxId, ...page } = filters;
  const scope = { merchantId, list: 'customers', id, email, taxId };
  const result = await keysetPage<CustomerRow>(db, cursors, scope, listCustomersQuery(merchantId, { id, email, taxId }), page as PageRequest);
  return { items: result.items.map(toCustomer), pagination: result.pagination };
}
