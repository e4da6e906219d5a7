import { describe, expect, it } from 'vitest';
import { buildStaticBrCode, formatCents, parseBrCode } from '../../src/pix/brcode.js';
import { crc16 } from '../../src/pix/emv.js';

const EVP = 'f4c6089a-bfde-4c00-a2d9-9eaa584b0219';
const base = {
  pixKey: EVP,
  amount: 12345,
  merchantName: 'Loja Exemplo',
  merchantCity: 'SAO PAULO',
  txid: 'Abc123XYZ',
};
const template26 = (code: string) => parseBrCode(code).fields.find((f) => f.id === '26')!;

describe('buildStaticBrCode', () => {
  it('produces the expected bytes (golden)', () => {
    expect(buildStaticBrCode(base)).toBe(
      '000201' +
        '26580014br.gov.bcb.pix0136f4c6089a-bfde-4c00-a2d9-9eaa584b0219' +
        '52040000' +
        '5303986' +
        '5406123.45' +
        '5802BR' +
        '5912Loja Exemplo' +
        '6009SAO PAULO' +
        '62130509Abc123XYZ' +
        '6304' +
        'AEC7', // CRC recomputed independently (Python, CRC-16/CCITT-FALSE)
    );
  });

  it('round-trips through parseBrCode', () => {
    const keys = [EVP, '52998224725', '11222333000181', '+5511987654321', 'fulano@example.com'];
    for (const pixKey of keys) {
      const code = buildStaticBrCode({ ...base, pixKey, txid: 'T' + pixKey.length });
      expect(parseBrCode(code)).toMatchObject({
        gui: 'br.gov.bcb.pix',
        pixKey,
        amount: 12345,
        txid: 'T' + pixKey.length,
        merchantName: 'Loja Exemplo',
        merchantCity: 'SAO PAULO',
      });
    }
  });

  it('ends with the upper-case CRC of everything before it, including 6304', () => {
    const code = buildStaticBrCode({ ...base, txid: 'x' });
    expect(code.slice(-8, -4)).toBe('6304');
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
    expect(code.slice(-4)).toMatch(/^[0-9A-F]{4}$/);
  });

  it.each([
    [1, '0.01'],
    [100, '1.00'],
    [12345, '123.45'],
    [100000000, '1000000.00'],
    [999_999_999_999, '9999999999.99'],
  ])('formats %i cents as %s in field 54', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
    const code = buildStaticBrCode({ ...base, amount: cents });
    expect(code).toContain('54' + String(text.length).padStart(2, '0') + text + '5802BR');
    expect(parseBrCode(code).amount).toBe(cents);
  });

  it('strips diacritics and truncates name (25) and city (15)', () => {
    const code = buildStaticBrCode({
      ...base,
      merchantName: 'Padaria São João da Esquina Ltda',
      merchantCity: 'Florianópolis do Norte',
    });
    expect(parseBrCode(code)).toMatchObject({ merchantName: 'Padaria Sao Joao da Esqui', merchantCity: 'Florianopolis d' });
    const short = parseBrCode(buildStaticBrCode({ ...base, merchantName: 'São João', merchantCity: 'Ição' }));
    expect([short.merchantName, short.merchantCity]).toEqual(['Sao Joao', 'Icao']);
  });

  it('does not leave a space where truncation cuts and drops non-ASCII symbols', () => {
    const code = buildStaticBrCode({ ...base, merchantName: 'ABCDEFGHIJKLMNOPQRSTUVWX YZ', merchantCity: '  Rio ☀ de\tJaneiro ' });
    expect(parseBrCode(code)).toMatchObject({ merchantName: 'ABCDEFGHIJKLMNOPQRSTUVWX', merchantCity: 'Rio de Janeiro' });
  });

  it('puts the description in 26-02, ASCII, truncated so template 26 stays ≤ 99', () => {
    const plain = buildStaticBrCode({ ...base, description: 'Pedido nº 42 – café' });
    expect(parseBrCode(plain).description).toBe('Pedido no 42 cafe');

    // GUI (18) + EVP key (4 + 36) leaves 99 − 58 − 4 = 37 characters for the description.
    const long = buildStaticBrCode({ ...base, description: 'D'.repeat(60) });
    expect(parseBrCode(long).description).toBe('D'.repeat(37));
    expect(template26(long).len).toBe(99);
  });

  it('omits 26-02 when there is no room or no text', () => {
    const key72 = 'a'.repeat(60) + '@example.com'; // 18 + 4 + 72 = 94: room for 1 character
    const key73 = 'a'.repeat(61) + '@example.com'; // 95: no room
    expect(parseBrCode(buildStaticBrCode({ ...base, pixKey: key72, description: 'xyz' })).description).toBe('x');
    expect(parseBrCode(buildStaticBrCode({ ...base, pixKey: key73, description: 'xyz' })).description).toBeUndefined();
    const key77 = 'a'.repeat(65) + '@example.com';
    expect(template26(buildStaticBrCode({ ...base, pixKey: key77, description: 'xyz' })).len).toBe(99);
    for (const description of [undefined, null, '', '   ', '☀☀']) {
      const code = buildStaticBrCode({ ...base, description });
      expect(parseBrCode(code).description).toBeUndefined();
      expect(template26(code).sub?.map((f) => f.id)).toEqual(['00', '01']);
    }
  });

  it.each([
    ['amount 0', { amount: 0 }, /amount/],
    ['negative amount', { amount: -100 }, /amount/],
    ['fractional amount', { amount: 10.5 }, /amount/],
    ['NaN amount', { amount: Number.NaN }, /amount/],
    ['amount over 13 characters', { amount: 1_000_000_000_000 }, /amount/],
    ['unsafe integer amount', { amount: 2 ** 53 }, /amount/],
    ['empty txid', { txid: '' }, /txid/],
    ['26-character txid', { txid: 'a'.repeat(26) }, /txid/],
    ['txid with a dash', { txid: 'abc-123' }, /txid/],
    ['txid ***', { txid: '***' }, /txid/],
    ['empty key', { pixKey: '' }, /pixKey/],
    ['key with a space', { pixKey: 'a b@example.com' }, /pixKey/],
    ['78-character key', { pixKey: 'a'.repeat(66) + '@example.com' }, /pixKey/],
    ['key with non-ASCII', { pixKey: 'joão@example.com' }, /pixKey/],
    ['name without ASCII', { merchantName: '☀☀' }, /merchantName/],
    ['blank city', { merchantCity: '   ' }, /merchantCity/],
  ])('throws on %s', (_name, override, reason) => {
    expect(() => buildStaticBrCode({ ...base, ...override })).toThrow(reason);
  });
});
