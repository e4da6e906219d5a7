import { checkTaxId } from '../customers/customer.service.js';
import { AppError } from '../platform/errors.js';
import type { LinkCheckoutInput } from './payment-link.schemas.js';
import type { PaymentLinkRow } from './payment-link.sql.js';

/** Why a payer's field was refused; the link page words each in the payer's language. */
export type PayerProblem = 'required' | 'invalid' | 'tooLong' | 'belowMin' | 'aboveMax' | 'invalidCpf' | 'invalidCnpj';
export type PayerField = 'amount' | 'name' | 'email' | 'taxId' | 'phone';

/** Every refused field at once (the page shows each beside its input); the API message names the first. */
export class PayerErrors extends AppError {
  constructor(readonly problems: Partial<Record<PayerField, PayerProblem>>, message: string) {
    super('VALIDATION_ERROR', message);
  }
}

export interface Payer {
  amount: number;
  name: string | null;
  email: string | null;
  taxId: string | null;
  phone: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const API_MESSAGE: Record<PayerProblem, string> = {
  required: 'required', invalid: 'invalid', tooLong: 'too long', belowMin: 'below the minimum', aboveMax: 'above the maximum',
  invalidCpf: 'invalid CPF', invalidCnpj: 'invalid CNPJ',
};

/**
 * The payer's input for this link (docs/contract/checkouts.md#link-page): the amount of a range link (cents; null when
 * what was typed is not an amount), and the customer fields the link asks for — others are ignored. CPF/CNPJ may be
 * typed with their mask; a phone with spaces, dashes and brackets.
 */
export function readPayer(link: PaymentLinkRow, input: Omit<LinkCheckoutInput, 'amount'> & { amount?: number | null }, fixedAmount: number): Payer {
  const problems: Partial<Record<PayerField, PayerProblem>> = {};
  const asks = new Set(link.customer_fields);
  const text = (field: 'name' | 'email' | 'taxId' | 'phone', max: number): string | null => {
    if (!asks.has(field)) return null;
    const value = (input[field] ?? '').trim();
    if (!value) problems[field] = 'required';
    else if (value.length > max) problems[field] = 'tooLong';
    return value || null;
  };
  let amount = fixedAmount;
  if (link.amount_min !== null) {
    if (input.amount === undefined) problems.amount = 'required';
    else if (input.amount === null) problems.amount = 'invalid';
    else if (input.amount < link.amount_min) problems.amount = 'belowMin';
    else if (input.amount > link.amount_max!) problems.amount = 'aboveMax';
    amount = input.amount ?? 0;
  }
  const name = text('name', 120);
  const email = text('email', 254);
  if (email && !problems.email && !EMAIL.test(email)) problems.email = 'invalid';
  let taxId = text('taxId', 18);
  if (taxId && !problems.taxId) {
    taxId = taxId.replace(/[.\-/\s]/g, '');
    try {
      checkTaxId(taxId);
    } catch {
      problems.taxId = taxId.length === 14 ? 'invalidCnpj' : taxId.length === 11 ? 'invalidCpf' : 'invalid';
    }
  }
  let phone = text('phone', 20);
  if (phone && !problems.phone) {
    phone = phone.replace(/[\s().-]/g, '');
    if (!/^\+?\d{10,13}$/.test(phone)) problems.phone = 'invalid';
  }
  const first = Object.entries(problems)[0];
  if (first) throw new PayerErrors(problems, `${first[0]}: ${API_MESSAGE[first[1]]}`);
  return { amount, name, email, taxId, phone };
}
