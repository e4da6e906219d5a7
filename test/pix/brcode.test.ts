import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBrCode } from '../../src/pix/brcode.js';
import { crc16, encodeTlv } from '../../src/pix/emv.js';

interface Vector {
  source: string;
  brcode: string;
  crc_computed: string;
  crc_ok: boolean;
  tlv_ok: boolean;
  expected_valid: boolean;
  note: string;
  fields: unknown;
}

const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/brcode-vectors.json', import.meta.url), 'utf8'),
) as Vector[];
const named = (list: Vector[]) => list.map((v) => [`${vectors.indexOf(v)}: ${v.source.slice(0, 70)}`, v] as const);
const valid = vectors.filter((v) => v.expected_valid);
const invalid = vectors.filter((v) => !v.expected_valid);

/** Appends `6304` and the correct CRC, so only the rule a case targets is broken. */
function withCrc(body: string): string {
  return body + '6304' + crc16(body + '6304');
}
const V1 = vectors[0]!.brcode;
const V1_BODY = V1.slice(0, -8);

describe('BR Code vectors', () => {
  it('has the 21 valid and 3 negative vectors', () => {
    expect([valid.length, invalid.length]).toEqual([21, 3]);
  });

  it.each(named(valid))('parses %s', (_name, v) => {
    const parsed = parseBrCode(v.brcode);
    expect(parsed.fields).toEqual(v.fields);
    expect(parsed.crc).toBe(v.crc_computed);
    expect(crc16(v.brcode.slice(0, -4))).toBe(v.crc_computed);
  });

  it.each(named(invalid))('rejects %s', (_name, v) => {
    const reason = v.tlv_ok ? /CRC is [0-9A-F]{4} but the payload gives [0-9A-F]{4}/ : /declares \d+ characters/;
    expect(() => parseBrCode(v.brcode)).toThrow(reason);
  });

  it('reads the named fields of the BCB static example', () => {
    expect(parseBrCode(V1)).toMatchObject({
      gui: 'br.gov.bcb.pix',
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      crc: '1D3D',
    });
    const parsed = parseBrCode(V1);
    expect([parsed.amount, parsed.txid, parsed.url, parsed.description]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('reads amount in cents, txid, description, location and recurrence location', () => {
    expect(parseBrCode(vectors[5]!.brcode)).toMatchObject({ amount: 1000, description: 'Pedido 123', pixKey: 'thalesog@me.com' });
    expect(parseBrCode(vectors[8]!.brcode)).toMatchObject({ amount: 57757, txid: '99ed983ea570413d8d336301d' });
    expect(parseBrCode(vectors[13]!.brcode)).toMatchObject({ amount: 10099, gui: 'BR.GOV.BCB.PIX' });
    expect(parseBrCode(vectors[19]!.brcode).amount).toBe(100);
    expect(parseBrCode(vectors[2]!.brcode)).toMatchObject({
      url: 'pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441',
      recurrenceUrl: 'pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa353194890',
    });
  });

  it('accepts a lower-case CRC (compared case-insensitively)', () => {
    const lower = vectors[0]!.brcode.slice(0, -4) + '1d3d';
    expect(parseBrCode(lower).crc).toBe('1d3d');
  });
});

describe('crc16', () => {
  it('is CRC-16/CCITT-FALSE', () => {
    expect(crc16('123456789')).toBe('29B1');
    expect(crc16('')).toBe('FFFF');
  });
});

describe('parseBrCode rejects', () => {
  const body = (replace: [string, string]) => V1_BODY.replace(...replace);
  const cases: Array<[string, string, RegExp]> = [
    ['a trailing newline', V1 + '\n', /truncated field header/],
    ['a missing CRC field', V1_BODY, /must end with 63/],
    ['a CRC that is not hex', V1_BODY + '6304XYZW', /must end with 63/],
    ['a non-decimal length', withCrc(V1_BODY.replace('5913Fulano', '59\u0031AFulano')), /invalid length|declares/],
    ['a length of 0A', withCrc('000201260A' + V1_BODY.slice(10)), /invalid length "0A"/],
    ['00 not first', withCrc(V1_BODY.slice(6) + '000201'), /must start with 00/],
    ['a payload format other than 01', withCrc(body(['000201', '000202'])), /must start with 00/],
    ['a duplicated field', withCrc(V1_BODY + '5303986'), /field 53 appears twice/],
    ['point of initiation 13', withCrc(body(['000201', '000201010213'])), /01 \(point of initiation\)/],
    ['26 without the Pix GUI', withCrc(body(['26580014br.gov.bcb.pix', '26580014br.gov.bcb.pax'])), /no merchant account template/],
    ['26 with only the GUI and no recurrence', withCrc('00020126180014br.gov.bcb.pix' + V1_BODY.slice(68)), /needs a key/],
    ['both 26-01 and 26-25', withCrc(body(['26580014', '26700014']).replace('426655440000', '4266554400002508host.com')), /mutually exclusive/],
    ['currency 840', withCrc(body(['5303986', '5303840'])), /53 \(currency\)/],
    ['country US', withCrc(body(['5802BR', '5802US'])), /58 \(country\)/],
    ['a 26-character name', withCrc(body(['5913Fulano de Tal', '5926ABCDEFGHIJKLMNOPQRSTUVWXYZ'])), /59 \(merchant name\)/],
    ['a 16-character city', withCrc(body(['6008BRASILIA', '6016BRASILIA BRASILI'])), /60 \(merchant city\)/],
    ['a missing 60', withCrc(body(['6008BRASILIA', ''])), /60 \(merchant city\)/],
    ['a 26-character txid', withCrc(body(['62070503***', '62300526abcdefghijklmnopqrstuvwxyz'])), /62-05 \(txid\) is longer/],
    ['62 without 05', withCrc(body(['62070503***', '62070703***'])), /62-05 .* is mandatory/],
    ['a malformed template', withCrc(body(['62070503***', '62070504***'])), /template 62/],
    ['amount 0.00', withCrc(body(['5802BR', '54040.005802BR'])), /greater than zero/],
    ['amount with a comma', withCrc(body(['5802BR', '54041,005802BR'])), /54 amount "1,00"/],
    ['amount with 3 decimals', withCrc(body(['5802BR', '540610.0005802BR'])), /54 amount/],
    ['a code longer than 512 characters', withCrc(V1_BODY + '9999' + 'x'.repeat(99)).padEnd(513, 'x'), /longer than 512/],
  ];
  it.each(cases)('%s', (_name, text, reason) => {
    expect(() => parseBrCode(text)).toThrow(reason);
  });

  it('parses amounts without decimals or with one decimal', () => {
    expect(parseBrCode(withCrc(V1_BODY.replace('5802BR', '5402105802BR'))).amount).toBe(1000);
    expect(parseBrCode(withCrc(V1_BODY.replace('5802BR', '54049.905802BR'))).amount).toBe(990);
    expect(parseBrCode(withCrc(V1_BODY.replace('5802BR', '540412.55802BR'))).amount).toBe(1250);
  });
});

describe('encodeTlv + crc16', () => {
  it('reproduce the BCB static example byte for byte', () => {
    const body =
      encodeTlv('00', '01') +
      encodeTlv('26', encodeTlv('00', 'br.gov.bcb.pix') + encodeTlv('01', '123e4567-e12b-12d1-a456-426655440000')) +
      encodeTlv('52', '0000') +
      encodeTlv('53', '986') +
      encodeTlv('58', 'BR') +
      encodeTlv('59', 'Fulano de Tal') +
      encodeTlv('60', 'BRASILIA') +
      encodeTlv('62', encodeTlv('05', '***')) +
      '6304';
    expect(body + crc16(body)).toBe(V1);
  });

  it('refuses empty and over-long values', () => {
    expect(() => encodeTlv('59', '')).toThrow(/1 to 99/);
    expect(() => encodeTlv('26', 'x'.repeat(100))).toThrow(/1 to 99/);
    expect(() => encodeTlv('5', 'x')).toThrow(/invalid EMV id/);
  });
});
