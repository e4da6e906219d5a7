/** One EMV data object. `len` counts characters (EMV), `sub` holds a template's nested objects. */
export interface Tlv {
  id: string;
  len: number;
  value: string;
  sub?: Tlv[];
}

/** GUI of the Pix arrangement in a merchant account template (BCB examples use lower case). */
export const PIX_GUI = 'br.gov.bcb.pix';

const TWO_DIGITS = /^\d{2}$/;

/** EMV MPM: ID (2 digits) + length (2 digits, 01–99) + value. */
export function encodeTlv(id: string, value: string): string {
  if (!TWO_DIGITS.test(id)) throw new Error(`invalid EMV id ${JSON.stringify(id)}`);
  const len = [...value].length;
  if (len < 1 || len > 99) throw new Error(`EMV field ${id} must be 1 to 99 characters, got ${len}`);
  return id + String(len).padStart(2, '0') + value;
}

/** Walks a flat TLV sequence with exact length accounting: a short value or trailing bytes is an error. */
export function decodeTlv(text: string): Tlv[] {
  // EMV lengths count characters, so walk code points rather than UTF-16 units.
  const chars = [...text];
  const out: Tlv[] = [];
  let pos = 0;
  while (pos < chars.length) {
    if (pos + 4 > chars.length) throw new Error(`truncated field header at position ${pos}`);
    const id = chars.slice(pos, pos + 2).join('');
    const lenText = chars.slice(pos + 2, pos + 4).join('');
    if (!TWO_DIGITS.test(id)) throw new Error(`invalid field id ${JSON.stringify(id)} at position ${pos}`);
    if (!TWO_DIGITS.test(lenText)) throw new Error(`invalid length ${JSON.stringify(lenText)} for field ${id}`);
    const len = Number(lenText);
    if (len === 0) throw new Error(`field ${id} has length 00`);
    const end = pos + 4 + len;
    if (end > chars.length) {
      throw new Error(`field ${id} at position ${pos} declares ${len} characters but only ${chars.length - pos - 4} remain`);
    }
    out.push({ id, len, value: chars.slice(pos + 4, end).join('') });
    pos = end;
  }
  return out;
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection) over UTF-8 bytes, as BR Code field 63 requires. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * EMV "ans" text: printable ASCII only. Payer validators (BCB's pixtester among them) reject accented
 * names, so compatibility forms are decomposed and diacritics stripped ("São João" → "Sao Joao",
 * "nº" → "no"); whitespace becomes single spaces and any other character is dropped.
 */
export function toEmvAscii(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\s/g, ' ')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}
