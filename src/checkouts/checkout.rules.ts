import { validationError } from '../platform/errors.js';
import type { Item } from './object/checkout.schemas.js';

/** The charge bounds every amount obeys (docs/contract/charges.md#charges), before the merchant's own tickets. */
export const MIN_AMOUNT = 100;
export const MAX_AMOUNT = 100_000_000;

/** Σ quantity × unitPrice, within the charge bounds (docs/contract/checkouts.md#checkouts); exact: integers only. */
export function cartAmount(items: Item[]): number {
  const amount = items.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0);
  if (amount < MIN_AMOUNT) throw validationError('items', `total must be >= ${MIN_AMOUNT}`);
  if (amount > MAX_AMOUNT) throw validationError('items', `total must be <= ${MAX_AMOUNT}`);
  return amount;
}

/**
 * A cart's lines as stored: only a line's own fields. Unknown body fields are ignored, and a stored one would reach
 * the CHECKOUT_* events (whose data is written from the row) beyond the object the API shows.
 */
export const cartLines = (items: Item[]): Item[] => items.map(({ name, quantity, unitPrice }) => ({ name, quantity, unitPrice }));

/** A page the payer is sent to: an absolute http(s) URL (its length is the schema's). */
export function checkPageUrl(field: string, value: string | undefined): void {
  if (value === undefined) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw validationError(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError(field, 'must be an absolute http(s) URL');
}

/** Metadata keys are at most 40 characters (JSON Schema bounds values and the count, not the keys). */
export function checkMetadata(metadata: Record<string, string> | undefined): void {
  if (metadata && Object.keys(metadata).some((k) => k.length > 40)) throw validationError('metadata', 'keys must be at most 40 characters');
}
