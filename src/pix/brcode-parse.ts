import { PIX_GUI, crc16, decodeTlv, type Tlv } from './emv.js';

export interface ParsedBrCode {
  /** Top-level objects in order; templates (26–51, 62, 64, 80–99) carry their objects in `sub`. */
  fields: Tlv[];
  /** The Pix GUI as written (issuers use either case). */
  gui: string;
  /** 26-01: the receiver's key (static codes). */
  pixKey?: string;
  /** 26-25: payload location (dynamic codes). */
  url?: string;
  /** 26-02: free text shown to the payer. */
  description?: string;
  /** 80–99 template with the Pix GUI, sub-field 25: Pix Automático recurrence location. */
  recurrenceUrl?: string;
  /** 54 in integer cents; absent when the payer types the amount. */
  amount?: number;
  merchantName: string;
  merchantCity: string;
  /** 62-05; absent when it is `***` (no txid). */
  txid?: string;
  /** 63 as written. */
  crc: string;
}

const MAX_BRCODE = 512; // API Pix `pixCopiaECola` maxLength
const MAX_KEY_OR_URL = 77; // DICT `Key` and API Pix `location` maxLength

function fail(reason: string): never {
  throw new Error(`invalid BR Code: ${reason}`);
}

function decode(text: string, where: string): Tlv[] {
  try {
    return decodeTlv(text);
  } catch (err) {
    return fail(`${where}: ${(err as Error).message}`);
  }
}

// EMV MPM templates: merchant account information 26–51, additional data 62, language 64, unreserved 80–99.
function isTemplate(id: string): boolean {
  const n = Number(id);
  return (n >= 26 && n <= 51) || n === 62 || n === 64 || n >= 80;
}

const sub = (field: Tlv | undefined, id: string): Tlv | undefined => field?.sub?.find((f) => f.id === id);
const hasPixGui = (field: Tlv): boolean => sub(field, '00')?.value.toLowerCase() === PIX_GUI;

// Parsed with integers only: `<digits>[.<1–2 digits>]`, at most 13 characters (EMV 54).
function parseAmount(text: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!match || text.length > 13) fail(`54 amount ${JSON.stringify(text)} is not a decimal of at most 13 characters`);
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (cents === 0) fail('54 amount must be greater than zero');
  return cents;
}

/**
 * Parses a BR Code (Pix Copia e Cola). Strict on structure (exact TLV lengths, 00 first, 63 last, CRC,
 * mandatory objects and their lengths); lenient where real issuers deviate (GUI case, CRC hex case,
 * txid charset, a scheme in 26-25, a txid in a dynamic code's 62-05).
 */
export function parseBrCode(text: string): ParsedBrCode {
  if (text.length > MAX_BRCODE) fail(`longer than ${MAX_BRCODE} characters`);
  const fields = decode(text, 'payload');
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.id)) fail(`field ${field.id} appears twice`);
    seen.add(field.id);
    if (isTemplate(field.id)) field.sub = decode(field.value, `template ${field.id}`);
  }

  const first = fields[0];
  const last = fields.at(-1);
  if (first?.id !== '00' || first.value !== '01') fail('must start with 00 (payload format indicator) = 01');
  if (last?.id !== '63' || !/^[0-9A-Fa-f]{4}$/.test(last.value)) fail('must end with 63 (CRC) of 4 hex digits');
  const expectedCrc = crc16(text.slice(0, -4));
  if (last.value.toUpperCase() !== expectedCrc) fail(`CRC is ${last.value} but the payload gives ${expectedCrc}`);

  const byId = new Map(fields.map((f) => [f.id, f]));
  const value = (id: string): string | undefined => byId.get(id)?.value;

  const initiation = value('01');
  if (initiation !== undefined && initiation !== '11' && initiation !== '12') {
    fail('01 (point of initiation) must be 11 or 12');
  }

  const account = fields.find((f) => Number(f.id) >= 26 && Number(f.id) <= 51 && hasPixGui(f));
  const gui = sub(account, '00')?.value;
  if (!account || gui === undefined) fail(`no merchant account template (26–51) with GUI ${PIX_GUI}`);
  const key = sub(account, '01');
  const url = sub(account, '25');
  if (key && url) fail('26-01 (key) and 26-25 (location) are mutually exclusive');
  if (url && sub(account, '03')) fail('26-03 (withdrawal facilitator) is for static codes only');
  if ((key?.len ?? 0) > MAX_KEY_OR_URL) fail('26-01 key is longer than 77 characters');
  if ((url?.len ?? 0) > MAX_KEY_OR_URL) fail('26-25 location is longer than 77 characters');
  const recurrence = fields.find((f) => Number(f.id) >= 80 && hasPixGui(f));
  const recurrenceUrl = sub(recurrence, '25')?.value;
  if (!key && !url && recurrenceUrl === undefined) {
    fail('needs a key (26-01), a location (26-25) or a recurrence location (80-25)');
  }

  if (!/^\d{4}$/.test(value('52') ?? '')) fail('52 (merchant category code) must be 4 digits');
  if (value('53') !== '986') fail('53 (currency) must be 986');
  if (value('58') !== 'BR') fail('58 (country) must be BR');
  const name = byId.get('59');
  if (!name || name.len > 25) fail('59 (merchant name) must be 1 to 25 characters');
  const city = byId.get('60');
  if (!city || city.len > 15) fail('60 (merchant city) must be 1 to 15 characters');
  // dmkamers (BCB) in bacen/pix-api #190: omitting 62-05 is not compliant; it holds a txid or `***`.
  const reference = sub(byId.get('62'), '05');
  if (!reference) fail('62-05 (reference label / txid) is mandatory');
  if (reference.len > 25) fail('62-05 (txid) is longer than 25 characters');
  const amountText = value('54');

  return {
    fields,
    gui,
    pixKey: key?.value,
    url: url?.value,
    description: sub(account, '02')?.value,
    recurrenceUrl,
    amount: amountText === undefined ? undefined : parseAmount(amountText),
    merchantName: name.value,
    merchantCity: city.value,
    txid: reference.value === '***' ? undefined : reference.value,
    crc: last.value,
  };
}
