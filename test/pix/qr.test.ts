import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { buildStaticBrCode } from '../../src/pix/brcode.js';
import QRCode from 'qrcode';
import { qrPngDataUrl, qrSymbol } from '../../src/pix/qr.js';
import { segmentText } from '../../src/pix/qr-segments.js';
import { penalty, toLines } from '../../src/pix/qr-penalty.js';

// jsqr is CommonJS with an ES-style `default`: NodeNext types the default import as the module object.
const jsQR = jsQRModule.default;
const PREFIX = 'data:image/png;base64,';
const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/brcode-vectors.json', import.meta.url), 'utf8'),
) as Array<{ brcode: string }>;

function pngBytes(dataUrl: string): Buffer {
  expect(dataUrl.startsWith(PREFIX)).toBe(true);
  const base64 = dataUrl.slice(PREFIX.length);
  expect(base64).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  return Buffer.from(base64, 'base64');
}

function decode(dataUrl: string): { text: string | undefined; png: PNG } {
  const png = PNG.sync.read(pngBytes(dataUrl));
  const rgba = new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length);
  return { text: jsQR(rgba, png.width, png.height, { inversionAttempts: 'dontInvert' })?.data, png };
}

const built = (description: string | null) =>
  buildStaticBrCode({
    pixKey: 'f4c6089a-bfde-4c00-a2d9-9eaa584b0219',
    amount: 1_234_567,
    merchantName: 'Padaria São João da Esquina',
    merchantCity: 'Florianópolis',
    txid: 'Q1w2E3r4T5y6U7i8O9p0AsDfG',
    description,
  });

const texts = [
  'PIX',
  vectors[0]!.brcode,
  built(null),
  built('Pedido 4242 - entrega amanha'),
  vectors[1]!.brcode,
  built('x').padEnd(512, 'Z'),
];

describe('qrPngDataUrl', () => {
  it('covers short, ~200-character and long inputs', () => {
    expect(texts.map((t) => t.length)).toEqual([3, 137, 188, 220, 359, 512]);
  });

  it.each(texts.map((t) => [t.length, t] as const))('decodes back to the exact %i-character text', (_len, text) => {
    expect(decode(qrPngDataUrl(text)).text).toBe(text);
  });

  it('is a 1-bit grayscale PNG with a 4-module quiet zone at 4 px per module', () => {
    const bytes = pngBytes(qrPngDataUrl(vectors[0]!.brcode));
    expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([bytes[24], bytes[25], bytes[28]]).toEqual([1, 0, 0]); // bit depth 1, grayscale, not interlaced
    const { png } = decode(qrPngDataUrl(vectors[0]!.brcode));
    const dark = (x: number, y: number) => png.data[(y * png.width + x) * 4] === 0;
    // The top-left finder pattern starts at pixel 16 (4 modules × 4 px); everything before is white.
    expect([dark(15, 15), dark(16, 15), dark(15, 16), dark(16, 16), dark(19, 19), dark(20, 20)]).toEqual([
      false, false, false, true, true, false,
    ]);
    expect((png.width / 4 - 8 - 21) % 4).toBe(0); // modules = 21 + 4 × (version − 1)
    expect(png.height).toBe(png.width);
  });

  it.each(vectors.map((v, i) => [i, v.brcode] as const))('decodes vector %i', (_i, text) => {
    expect(decode(qrPngDataUrl(text)).text).toBe(text);
  });
});

describe('qrSymbol', () => {
  it('has the version qrcode itself would choose, for every vector and built code', () => {
    for (const text of [...vectors.map((v) => v.brcode), ...texts]) {
      const own = QRCode.create(text, { errorCorrectionLevel: 'M' });
      const symbol = qrSymbol(text);
      expect([text.length, symbol.version]).toEqual([text.length, own.version]);
      expect(symbol.errorCorrectionLevel.bit).toBe(own.errorCorrectionLevel.bit);
    }
  });
});

describe('qrSymbol masking', () => {
  it('gives exactly the modules qrcode builds when handed the same segments and the chosen mask', () => {
    const codes = [...vectors.map((v) => v.brcode), ...texts, ...Array.from({ length: 200 }, (_, i) => built(`Pedido ${i}`))];
    const masks = new Set<number>();
    for (const text of codes) {
      const symbol = qrSymbol(text);
      if (symbol.maskPattern === undefined) throw new Error('qrSymbol left the mask pattern unset');
      masks.add(symbol.maskPattern);
      const segments = segmentText(text, symbol.version >= 27 ? 2 : symbol.version >= 10 ? 1 : 0);
      const own = QRCode.create(segments, { errorCorrectionLevel: 'M', maskPattern: symbol.maskPattern });
      expect(own.version).toBe(symbol.version);
      expect(Buffer.from(symbol.modules.data).equals(Buffer.from(own.modules.data))).toBe(true);
    }
    expect(masks.size).toBeGreaterThan(4); // the rewritten format information is exercised for many masks
  });
});

/** ISO/IEC 18004 §7.8.3 penalty module by module: the reference qr-penalty.ts must match. */
function referencePenalty(m: Uint8Array, size: number): number {
  let points = 0;
  let dark = 0;
  const at = (i: number, j: number) => m[i * size + j]!;
  for (let a = 0; a < size; a++) {
    for (const line of [(b: number) => at(a, b), (b: number) => at(b, a)]) {
      let run = 0;
      for (let b = 0; b < size; b++) {
        run = b > 0 && line(b) === line(b - 1) ? run + 1 : 1;
        if (run === 5) points += 3;
        if (run > 5) points += 1;
        if (b >= 10) {
          const window = Array.from({ length: 11 }, (_, k) => line(b - 10 + k)).join('');
          if (window === '10111010000' || window === '00001011101') points += 40;
        }
      }
    }
    for (let b = 0; b < size; b++) {
      dark += at(a, b);
      if (a > 0 && b > 0) {
        const block = at(a, b) + at(a, b - 1) + at(a - 1, b) + at(a - 1, b - 1);
        if (block === 0 || block === 4) points += 3;
      }
    }
  }
  return points + 10 * Math.floor(Math.abs((dark * 100) / (size * size) - 50) / 5);
}

describe('mask penalty on packed lines', () => {
  it('scores every mask of real symbols exactly as the module-by-module definition', () => {
    for (const text of [vectors[0]!.brcode, built('Pedido 7'), texts[5]!]) {
      for (let mask = 0; mask < 8; mask++) {
        const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M', maskPattern: mask as QRCode.QRCodeMaskPattern });
        expect(penalty(toLines(modules.data, modules.size))).toBe(referencePenalty(modules.data, modules.size));
      }
    }
  });

  it('matches it on random matrices of every width class (1 to 6 words per line)', () => {
    for (const size of [21, 31, 33, 45, 63, 65, 97, 177]) {
      for (let n = 0; n < 3; n++) {
        // Sparse, dense and even: long runs and 2×2 blocks as well as noise.
        const threshold = [0.15, 0.5, 0.85][n]!;
        const m = Uint8Array.from({ length: size * size }, () => (randomInt(1000) / 1000 < threshold ? 1 : 0));
        expect([size, n, penalty(toLines(m, size))]).toEqual([size, n, referencePenalty(m, size)]);
      }
    }
  });
});

describe('segmentText', () => {
  const numeric = /^[0-9]+$/;
  const alphanumeric = /^[0-9A-Z $%*+\-./:]+$/;

  it.each(texts.map((t) => [t.length, t] as const))('splits %i characters into valid segments that rejoin to the text', (_len, text) => {
    const segments = segmentText(text, 0);
    const rejoined = segments
      .map((seg) => {
        if (seg.mode === 'numeric') expect(String(seg.data)).toMatch(numeric);
        if (seg.mode === 'alphanumeric') expect(seg.data).toMatch(alphanumeric);
        return seg.mode === 'byte' ? Buffer.from(seg.data).toString('utf8') : String(seg.data);
      })
      .join('');
    expect(rejoined).toBe(text);
  });

  it('uses numeric mode for long digit runs and byte mode for lower case', () => {
    expect(segmentText('abc' + '1234567890'.repeat(3) + 'def', 0).map((seg) => seg.mode)).toEqual(['byte', 'numeric', 'byte']);
    expect(segmentText('HELLO WORLD 12', 0).map((seg) => seg.mode)).toEqual(['alphanumeric']);
    expect(segmentText('a1b', 0).map((seg) => seg.mode)).toEqual(['byte']);
  });

  it('encodes non-ASCII text as UTF-8 bytes', () => {
    const text = 'Pagamento São João ☀ 2024';
    expect(decode(qrPngDataUrl(text)).text).toBe(text);
  });
});
