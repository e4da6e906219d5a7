import { chargeFee, checkTicket, netAmount, resolveSplit } from '../charges/charge.rules.js';
import { cartAmount, cartLines, checkPageUrl } from '../checkouts/checkout.rules.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { qrPngDataUrl } from '../pix/index.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { withStatement, type TransactionHook } from '../platform/db.js';
import { notFound, validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import type { PaymentLink, PaymentLinkCreate, PaymentLinkListFilters, PaymentLinkQrCode } from './payment-link.schemas.js';
import {
  insertPaymentLink, listPaymentLinksQuery, selectPaymentLinkView, setPaymentLinkActive, type PaymentLinkRow, type PaymentLinkViewRow,
} from './payment-link.sql.js';

const DEFAULT_CHECKOUT_EXPIRES_IN = 3600;

/** `<PUBLIC_URL>/l/<id>`: the page a payer opens. */
export const linkPageUrl = (publicUrl: string, id: string) => `${publicUrl}/l/${id}`;

/** The link as the API shows it (docs/contract/checkouts.md#payment-links); `amount` of a cart link is its total. */
export function toPaymentLink(row: PaymentLinkViewRow, publicUrl: string): PaymentLink {
  return {
    id: row.id,
    name: row.name,
    status: row.active ? 'ACTIVE' : 'INACTIVE',
    items: row.items,
    amount: row.items ? cartAmount(row.items) : row.amount,
    amountRange: row.amount_min === null ? null : { min: row.amount_min, max: row.amount_max! },
    description: row.description,
    customerFields: row.customer_fields,
    maxPayments: row.max_payments,
    activeUntil: row.active_until?.toISOString() ?? null,
    completionUrl: row.completion_url,
    url: linkPageUrl(publicUrl, row.id),
    payments: row.payments,
    amountReceived: row.amount_received,
    createdAt: row.created_at.toISOString(),
  };
}

/** The one way the link is priced: exactly one of items, amount or amountRange, within the charge bounds and the merchant's tickets. */
function pricing(merchant: MerchantRow, input: PaymentLinkCreate): { lowest: number; highest: number } {
  const given = [input.items, input.amount, input.amountRange].filter((v) => v !== undefined).length;
  if (given !== 1) throw validationError('amount', 'give exactly one of items, amount or amountRange');
  if (input.items) {
    const total = cartAmount(input.items);
    checkTicket(merchant, total, 'items');
    return { lowest: total, highest: total };
  }
  if (input.amount !== undefined) {
    checkTicket(merchant, input.amount);
    return { lowest: input.amount, highest: input.amount };
  }
  const { min, max } = input.amountRange!;
  if (min > max) throw validationError('amountRange', 'min must be <= max');
  checkTicket(merchant, min, 'amountRange.min');
  checkTicket(merchant, max, 'amountRange.max');
  return { lowest: min, highest: max };
}

/** The row a create writes; the dashboard's preview renders the same row without writing it (docs/checkouts.md#previews). */
export function linkRow(id: string, merchantId: string, input: PaymentLinkCreate): Omit<PaymentLinkRow, 'created_at' | 'active'> {
  return {
    id, merchant_id: merchantId, name: input.name, items: input.items ? cartLines(input.items) : null, amount: input.amount ?? null,
    amount_min: input.amountRange?.min ?? null, amount_max: input.amountRange?.max ?? null, description: input.description ?? null,
    customer_fields: input.customerFields ?? [], max_payments: input.maxPayments ?? null,
    active_until: input.activeUntil === undefined ? null : new Date(input.activeUntil), completion_url: input.completionUrl ?? null,
    split: (input.split ?? []).map(({ merchantId: recipient, mode, value }) => ({ merchantId: recipient, mode, value })),
    checkout_expires_in: input.checkoutExpiresIn ?? DEFAULT_CHECKOUT_EXPIRES_IN,
  };
}

/**
 * POST /payment-links. The split is checked now against the lowest price (where a FIXED share weighs most) and
 * again at each checkout, against that checkout's amount and the recipients as they are then.
 */
export async function createPaymentLink(rt: Runtime, merchant: MerchantRow, input: PaymentLinkCreate, hook?: TransactionHook<PaymentLink>): Promise<PaymentLink> {
  const { lowest } = pricing(merchant, input);
  checkPageUrl('completionUrl', input.completionUrl);
  const split = input.split ?? [];
  netAmount(lowest, chargeFee(merchant, lowest), await resolveSplit(rt.pool, merchant.id, lowest, split));
  const id = newId('plk');
  return withStatement(rt.pool, async (db) => {
    await insertPaymentLink(db, linkRow(id, merchant.id, input));
    return toPaymentLink((await selectPaymentLinkView(db, id, merchant.id))!, rt.config.publicUrl);
  }, hook);
}

export async function getPaymentLink(rt: Runtime, merchantId: string, id: string): Promise<PaymentLink> {
  const row = await selectPaymentLinkView(rt.pool, id, merchantId);
  if (!row) throw notFound('Payment link');
  return toPaymentLink(row, rt.config.publicUrl);
}

/** GET /payment-links/{id}/qr-code: the link's URL as a QR image to print, drawn by the one QR encoder (src/pix). */
export async function linkQrCode(rt: Runtime, merchantId: string, id: string): Promise<PaymentLinkQrCode> {
  const { url } = await getPaymentLink(rt, merchantId, id);
  return { url, imageBase64: qrPngDataUrl(url) };
}

/** PATCH /payment-links/{id} {active}: the only change a link takes; its price never changes. */
export async function setLinkActive(rt: Runtime, merchantId: string, id: string, active: boolean): Promise<PaymentLink> {
  if (!(await setPaymentLinkActive(rt.pool, id, merchantId, active))) throw notFound('Payment link');
  return getPaymentLink(rt, merchantId, id);
}

export async function listPaymentLinks(rt: Runtime, merchantId: string, filters: PaymentLinkListFilters): Promise<Page<PaymentLink>> {
  const { status, ...page } = filters;
  const result = await keysetPage<PaymentLinkViewRow>(rt.pool, rt.cursors, { merchantId, list: 'payment-links', status },
    listPaymentLinksQuery(merchantId, { status }), page as PageRequest);
  return { items: result.items.map((row) => toPaymentLink(row, rt.config.publicUrl)), pagination: result.pagination };
}

/** The link and its merchant, for the public pages (any merchant's: the link id is the only key). */
export async function findLinkWithMerchant(rt: Runtime, id: string): Promise<{ link: PaymentLinkViewRow; merchant: MerchantRow } | undefined> {
  const link = await selectPaymentLinkView(rt.pool, id, null);
  const merchant = link && (await selectMerchant(rt.pool, link.merchant_id));
  return link && merchant ? { link, merchant } : undefined;
}
