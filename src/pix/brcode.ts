import { formatCents } from './amount.js';
import { isValidStaticTxid } from './ids.js';
import { PIX_GUI, crc16, encodeTlv, toEmvAscii } from './emv.js';

export { crc16 } from './emv.js';
export { formatCents } from './amount.js';
export { parseBrCode, type ParsedBrCode } from './brcode-parse.js';

export interface StaticBrCodeInput {
  pixKey: string;
  /** Integer cents. */
  amount: number;
  merchantName: string;
  merchantCity: string;
  txid: string;
  description?: string | null;
}

const MAX_NAME = 25; // 59 Merchant Name: 1–25 (Manual do BR Code; bacen/pix-api #157, #189)
const MAX_CITY = 15; // 60 Merchant City: 1–15
const MAX_TEMPLATE = 99; // a TLV length has two digits, so template 26 holds at most 99 characters
const MAX_KEY = 77; // DICT `Key` maxLength
// 54 is at most 13 characters: 10 integer digits, '.', 2 decimals.
const MAX_AMOUNT_CENTS = 999_999_999_999;

function asciiField(text: string, max: number): string {
  return toEmvAscii(text).slice(0, max).trimEnd();
}

/** What every Pix BR Code carries after its merchant account template. */
export interface MerchantData {
  merchantName: string;
  merchantCity: string;
  /** Integer cents for 54; absent when the amount is not in the code (dynamic codes: it is the payload's). */
  amount?: number;
  /** 62-05: a static txid, or `***`. */
  txid: string;
}

/** 52 `0000`, 53 `986`, 54 (when given), 58 `BR`, 59 name and 60 city in EMV ASCII, 62-05. */
export function merchantDataFields(data: MerchantData): string {
  const merchantName = asciiField(data.merchantName, MAX_NAME);
  const merchantCity = asciiField(data.merchantCity, MAX_CITY);
  if (merchantName === '') throw new Error('merchantName has no printable ASCII characters');
  if (merchantCity === '') throw new Error('merchantCity has no printable ASCII characters');
  return (
    encodeTlv('52', '0000') +
    encodeTlv('53', '986') +
    (data.amount === undefined ? '' : encodeTlv('54', formatCents(data.amount))) +
    encodeTlv('58', 'BR') +
    encodeTlv('59', merchantName) +
    encodeTlv('60', merchantCity) +
    encodeTlv('62', encodeTlv('05', data.txid))
  );
}

/** Ends a payload with 63: `6304` and the CRC-16/CCITT-FALSE of everything up to and including it. */
export function withCrc(payload: string): string {
  return payload + '6304' + crc16(payload + '6304');
}

/**
 * Static Pix BR Code (docs/contract/charges.md#br-code): 00, 26 (GUI, key, optional description), 52 `0000`, 53 `986`,
 * 54 amount, 58 `BR`, 59 name, 60 city, 62-05 txid, 63 CRC-16/CCITT-FALSE over everything up to `6304`.
 */
export function buildStaticBrCode(input: StaticBrCodeInput): string {
  const { pixKey, amount, txid } = input;
  if (!isValidStaticTxid(txid)) throw new Error('txid must be 1 to 25 characters [A-Za-z0-9]');
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_AMOUNT_CENTS) {
    throw new Error(`amount must be an integer of cents from 1 to ${MAX_AMOUNT_CENTS}`);
  }
  if (!/^[\x21-\x7e]+$/.test(pixKey) || pixKey.length > MAX_KEY) {
    throw new Error(`pixKey must be 1 to ${MAX_KEY} printable ASCII characters without spaces`);
  }

  const keyPart = encodeTlv('00', PIX_GUI) + encodeTlv('01', pixKey);
  // 26-02 shares template 26's 99 characters with the GUI and the key: truncate it to the room left.
  const room = MAX_TEMPLATE - keyPart.length - 4;
  const description = room > 0 ? asciiField(input.description ?? '', room) : '';
  const merchantAccount = description === '' ? keyPart : keyPart + encodeTlv('02', description);
  return withCrc(encodeTlv('00', '01') + encodeTlv('26', merchantAccount) + merchantDataFields(input));
}
