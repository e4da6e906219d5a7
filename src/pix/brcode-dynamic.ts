import { merchantDataFields, withCrc } from './brcode.js';
import { parseBrCode } from './brcode-parse.js';
import { PIX_GUI, encodeTlv } from './emv.js';

// BR Codes whose data lives at a location (pix-standards.md §1.3, §1.6, §1.8; API Pix 2.9.0 examples):
// the dynamic code of a cob/cobv (26-25), and Pix Automático's recurrence location in template 80.

export interface DynamicBrCodeInput {
  /** 26-25: where the payer's bank fetches the payload (JWS), without a scheme. */
  location: string;
  merchantName: string;
  merchantCity: string;
}

export interface RecurrenceBrCodeInput {
  /** 80-25: where the payer's bank fetches the recurrence (`RecPayload` JWS), without a scheme. */
  recurrenceLocation: string;
  merchantName: string;
  merchantCity: string;
}

const MAX_LOCATION = 77; // API Pix `location` maxLength

/** A location as BR Codes carry it: printable ASCII without spaces, no scheme, at most 77 characters. */
function checkLocation(location: string): void {
  if (!/^[\x21-\x7e]+$/.test(location)) throw new Error(`location ${JSON.stringify(location)} must be printable ASCII without spaces`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) throw new Error(`location ${location} must not carry a scheme`);
  if (location.length > MAX_LOCATION) {
    throw new Error(`location ${location} has ${location.length} characters, more than the ${MAX_LOCATION} a BR Code carries`);
  }
}

/**
 * `<host><path>/pix/v2/<cobv|rec>/<token>`: a payload location served by Pixgate itself under its public
 * URL, without the scheme (docs/contract/due-date-charges.md#due-date-charges,
 * docs/contract/subscriptions.md#subscriptions). With a 32-character token the public URL's host and path
 * can have at most 32 characters (77 − 13 − 32).
 */
export function payloadLocation(publicUrl: string, kind: 'cobv' | 'rec', token: string): string {
  if (!/^[A-Za-z0-9]+$/.test(token)) throw new Error('a location token is alphanumeric');
  const url = new URL(publicUrl);
  const location = `${url.host}${url.pathname.replace(/\/+$/, '')}/pix/v2/${kind}/${token}`;
  checkLocation(location);
  return location;
}

/**
 * Dynamic BR Code, as a PSP issues for `cob` and `cobv` (docs/contract/due-date-charges.md#due-date-charges):
 * 00, 01 = `12` (single use), 26 (GUI + 25 location), 52, 53, 58, 59, 60, 62-05 `***`, 63. No 54, as in BCB's examples: the amount is
 * the payload's, and a due-date charge's changes with the day of payment.
 */
export function buildDynamicBrCode(input: DynamicBrCodeInput): string {
  checkLocation(input.location);
  const account = encodeTlv('00', PIX_GUI) + encodeTlv('25', input.location);
  return withCrc(encodeTlv('00', '01') + encodeTlv('01', '12') + encodeTlv('26', account) + merchantDataFields({ ...input, txid: '***' }));
}

function recurrenceTemplate(location: string): string {
  checkLocation(location);
  return encodeTlv('80', encodeTlv('00', PIX_GUI) + encodeTlv('25', location));
}

/**
 * Pix Automático journey 2, the recurrence alone: 26 holds only the GUI, 80 the recurrence location,
 * 62-05 `***`, and no 01 — as BCB's `dadosQR` example (`…80800014br.gov.bcb.pix2558…/rec/…`).
 */
export function buildRecurrenceBrCode(input: RecurrenceBrCodeInput): string {
  const account = encodeTlv('00', PIX_GUI);
  return withCrc(
    encodeTlv('00', '01') + encodeTlv('26', account) + merchantDataFields({ ...input, txid: '***' }) + recurrenceTemplate(input.recurrenceLocation),
  );
}

/**
 * Pix Automático journey 3, the composite code: an immediate charge's BR Code (static or dynamic) with
 * 80 added before its CRC, which is recomputed — every field of the charge stays as it was.
 */
export function withRecurrence(brCode: string, recurrenceLocation: string): string {
  const { fields } = parseBrCode(brCode);
  if (fields.some((f) => f.id === '80')) throw new Error('the BR Code already has a template 80');
  // parseBrCode checked that 63 is the last field: `6304` and four hex digits.
  return withCrc(brCode.slice(0, -8) + recurrenceTemplate(recurrenceLocation));
}
