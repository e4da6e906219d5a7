import { readFileSync } from 'node:fs';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import {
  buildDynamicBrCode,
  buildRecurrenceBrCode,
  buildStaticBrCode,
  parseBrCode,
  payloadLocation,
  qrPngDataUrl,
  withRecurrence,
} from '../../src/pix/index.js';

const jsQR = jsQRModule.default;

interface Field {
  id: string;
  value: string;
  sub?: Field[];
}
interface Vector {
  source: string;
  brcode: string;
  /** The decode, or the reason it failed (a negative vector). */
  fields: Field[] | string;
}
const vectors = JSON.parse(readFileSync(new URL('../fixtures/brcode-vectors.json', import.meta.url), 'utf8')) as Vector[];

const field = (v: Vector, id: string) => (Array.isArray(v.fields) ? v.fields.find((f) => f.id === id) : undefined);
const sub = (v: Vector, id: string, subId: string) => field(v, id)?.sub?.find((f) => f.id === subId)?.value;
const location = (v: Vector) => sub(v, '26', '25');
const recurrence = (v: Vector) => sub(v, '80', '25');
const merchant = (v: Vector) => ({ merchantName: field(v, '59')!.value, merchantCity: field(v, '60')!.value });

/**
 * Each vector that carries a location (26-25) or a recurrence location (80-25), rebuilt from its decoded
 * fields by our builders — or the reason it is not a code we issue.
 */
const rebuild: Record<number, ((v: Vector) => string) | string> = {
  1: 'Manual do BR Code example: upper-case GUI, and its 80 is a generic template with sub-field 01',
  2: (v) => withRecurrence(buildDynamicBrCode({ location: location(v)!, ...merchant(v) }), recurrence(v)!), // journey 3 (cob + rec)
  3: (v) => withRecurrence(buildDynamicBrCode({ location: location(v)!, ...merchant(v) }), recurrence(v)!), // cobv + rec
  4: (v) => buildRecurrenceBrCode({ recurrenceLocation: recurrence(v)!, ...merchant(v) }), // journey 2
  9: 'dynamic without 01 (we emit 01 = 12 as BCB does: vector 10 is the same code with it)',
  10: (v) => buildDynamicBrCode({ location: location(v)!, ...merchant(v) }),
  11: (v) =>
    withRecurrence(
      buildStaticBrCode({
        pixKey: sub(v, '26', '01')!,
        description: sub(v, '26', '02'),
        amount: Number(field(v, '54')!.value.replace('.', '')),
        txid: sub(v, '62', '05')!,
        ...merchant(v),
      }),
      recurrence(v)!,
    ), // journey 3 on a static charge, as the simulator's
  12: (v) => withRecurrence(buildDynamicBrCode({ location: location(v)!, ...merchant(v) }), recurrence(v)!),
  17: 'old manual example: 54 and a txid with "-" in a dynamic code',
  18: 'upper-case GUI (we emit BCB\'s lower case)',
  20: 'location with https:// (refused below)',
  22: 'a negative vector: its CRC is wrong (and it has 54)',
};

describe('BR Code vectors with a location or a recurrence', () => {
  const withLocation = vectors.map((v, i) => [i, v] as const).filter(([, v]) => location(v) !== undefined || field(v, '80'));

  it('each one is accounted for', () => {
    expect(withLocation.map(([i]) => i).sort((a, b) => a - b)).toEqual(Object.keys(rebuild).map(Number));
  });

  it.each(withLocation.filter(([i]) => typeof rebuild[i] === 'function'))('vector %i is rebuilt byte for byte from its fields', (i, v) => {
    const build = rebuild[i] as (v: Vector) => string;
    expect(build(v)).toBe(v.brcode);
  });

  it('a location with a scheme is refused', () => {
    expect(() => buildDynamicBrCode({ location: location(vectors[20]!)!, ...merchant(vectors[20]!) })).toThrow(/must not carry a scheme/);
  });
});

describe('dynamic and recurrence codes', () => {
  const shop = { merchantName: 'Padaria São João da Esquina', merchantCity: 'Florianópolis' };
  const cobv = 'pixgate.example.com/pix/v2/cobv/Q1w2E3r4T5y6U7i8O9p0AsDfGhJkL';
  const rec = 'pixgate.example.com/pix/v2/rec/Z9x8C7v6B5n4M3a2S1d0FgHjKlQ';

  it('a dynamic code: 01 = 12, 26-25 the location, no 54, 62-05 ***', () => {
    const code = buildDynamicBrCode({ location: cobv, ...shop });
    expect(code).toMatch(/^000201010212/);
    const parsed = parseBrCode(code);
    expect(parsed).toMatchObject({ url: cobv, pixKey: undefined, amount: undefined, txid: undefined, merchantName: 'Padaria Sao Joao da Esqui', merchantCity: 'Florianopolis' });
    expect(parsed.fields.map((f) => f.id)).toEqual(['00', '01', '26', '52', '53', '58', '59', '60', '62', '63']);
  });

  it('journey 2: 26 with the GUI alone, the recurrence in 80, no 01', () => {
    const code = buildRecurrenceBrCode({ recurrenceLocation: rec, ...shop });
    const parsed = parseBrCode(code);
    expect(parsed.fields.map((f) => f.id)).toEqual(['00', '26', '52', '53', '58', '59', '60', '62', '80', '63']);
    expect(parsed).toMatchObject({ recurrenceUrl: rec, url: undefined, pixKey: undefined, txid: undefined });
    expect(parsed.fields.find((f) => f.id === '26')!.value).toBe('0014br.gov.bcb.pix');
  });

  it('journey 3: the immediate charge’s code, unchanged, with 80 before the CRC', () => {
    const charge = buildStaticBrCode({ pixKey: 'loja@example.com', amount: 4_990, txid: 'A1b2C3d4E5f6G7h8I9j0K1l2M', ...shop });
    const code = withRecurrence(charge, rec);
    expect(code.slice(0, charge.length - 8)).toBe(charge.slice(0, -8));
    expect(parseBrCode(code)).toMatchObject({ pixKey: 'loja@example.com', amount: 4_990, txid: 'A1b2C3d4E5f6G7h8I9j0K1l2M', recurrenceUrl: rec });
    const dynamic = withRecurrence(buildDynamicBrCode({ location: cobv, ...shop }), rec);
    expect(parseBrCode(dynamic)).toMatchObject({ url: cobv, recurrenceUrl: rec });
    expect(() => withRecurrence(code, rec)).toThrow(/already has a template 80/);
    expect(() => withRecurrence(charge.slice(0, -1) + '0', rec)).toThrow(/CRC/);
  });

  it('refuses locations a BR Code cannot carry', () => {
    expect(() => buildDynamicBrCode({ location: 'a'.repeat(78), ...shop })).toThrow(/more than the 77/);
    expect(buildDynamicBrCode({ location: 'a'.repeat(77), ...shop })).toContain('2577' + 'a'.repeat(77));
    expect(() => buildDynamicBrCode({ location: 'pix.example.com/a b', ...shop })).toThrow(/without spaces/);
    expect(() => buildRecurrenceBrCode({ recurrenceLocation: 'http://pix.example.com/rec/1', ...shop })).toThrow(/scheme/);
  });

  it.each([
    ['a dynamic code', () => buildDynamicBrCode({ location: cobv, ...shop })],
    ['a recurrence code', () => buildRecurrenceBrCode({ recurrenceLocation: rec, ...shop })],
    ['a composite code', () => withRecurrence(buildDynamicBrCode({ location: cobv, ...shop }), rec)],
  ])('%s decodes back from its QR PNG', (_name, build) => {
    const code = build();
    const png = PNG.sync.read(Buffer.from(qrPngDataUrl(code).slice('data:image/png;base64,'.length), 'base64'));
    const rgba = new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length);
    expect(jsQR(rgba, png.width, png.height, { inversionAttempts: 'dontInvert' })?.data).toBe(code);
  });
});

describe('payloadLocation', () => {
  const token = 'Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXc'; // 32 characters
  it.each([
    ['https://pixgate.example.com', 'cobv', 'pixgate.example.com/pix/v2/cobv/'],
    ['https://pixgate.example.com/', 'rec', 'pixgate.example.com/pix/v2/rec/'],
    ['http://localhost:3000', 'cobv', 'localhost:3000/pix/v2/cobv/'],
    ['https://example.com/gw/', 'rec', 'example.com/gw/pix/v2/rec/'],
  ] as const)('%s, %s → %s<token>', (url, kind, prefix) => {
    expect(payloadLocation(url, kind, token)).toBe(prefix + token);
  });

  it('refuses a public URL too long for a 77-character location, and a token that is not alphanumeric', () => {
    expect(payloadLocation('https://' + 'a'.repeat(32), 'cobv', token)).toHaveLength(77);
    expect(() => payloadLocation('https://' + 'a'.repeat(33), 'cobv', token)).toThrow(/78 characters/);
    expect(() => payloadLocation('https://pixgate.example.com', 'cobv', 'a/b')).toThrow(/alphanumeric/);
  });
});
