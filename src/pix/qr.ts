import QRCode from 'qrcode';
import zlib from 'node:zlib';
import { maskSymbol } from './qr-mask.js';
import { segmentText } from './qr-segments.js';

const SCALE = 4; // pixels per module: a nibble of a 1-bit row (encodePng relies on it)
const QUIET_ZONE = 4; // modules of white border, the minimum ISO/IEC 18004 asks for
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// zlib.crc32 exists from Node 20.15; package.json allows 20.11, which gets this table's.
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

const crc32: (bytes: Uint8Array) => number = zlib.crc32 ?? ((bytes) => {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
});

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/** 1-bit grayscale PNG (bit depth 1, colour type 0): bit 1 = white, 0 = dark module. */
function encodePng(size: number, dark: Uint8Array): Buffer {
  const width = (size + 2 * QUIET_ZONE) * SCALE;
  const stride = 1 + Math.ceil(width / 8); // filter-type byte (0 = None) + packed pixels
  const raw = Buffer.alloc(stride * width, 0xff);
  for (let y = 0; y < width; y++) raw[y * stride] = 0;

  // At 4 px per module, module-aligned, each module is one nibble of a row and each pair of modules one byte
  // (the quiet zone is 16 px, two whole bytes), written whole without a branch per module: a dark one is 0.
  // The bits past the right edge of a symbol row are 0 (PNG readers ignore them).
  const pad = width & 7 ? (0xff << (8 - (width & 7))) & 0xff : 0xff;
  const first = 1 + (QUIET_ZONE * SCALE) / 8;
  for (let row = 0; row < size; row++) {
    const start = (QUIET_ZONE + row) * SCALE * stride;
    const modules = row * size;
    for (let col = 0; col < size; col += 2) {
      const left = dark[modules + col] === 1 ? 0 : 0xf0;
      const right = col + 1 < size && dark[modules + col + 1] === 1 ? 0 : 0x0f;
      raw[start + first + (col >> 1)] = left | right;
    }
    raw[start + stride - 1] = raw[start + stride - 1]! & pad;
    // The row's other three pixel rows: copyWithin, not Buffer#copy, whose call costs more than these bytes.
    raw.copyWithin(start + stride, start, start + stride);
    raw.copyWithin(start + 2 * stride, start, start + 2 * stride);
  }

  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, adaptive filtering, no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(raw, { level: 1 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The QR symbol for `text` at error correction M. Left to itself, `QRCode.create(text)` spends ~1.2 ms
 * per BR Code choosing segments and mask; segmenting (qr-segments) and scoring masks (qr-mask) here,
 * with qrcode building the symbol once (mask pattern 0) and qr-mask re-masking it, gives a symbol of
 * the same version, identical to qrcode's for the chosen mask, in about a third of that.
 */
export function qrSymbol(text: string): QRCode.QRCode {
  const options = { errorCorrectionLevel: 'M', maskPattern: 0 } as const;
  let qr = QRCode.create(segmentText(text, 0), options);
  if (qr.version >= 10) qr = QRCode.create(segmentText(text, qr.version >= 27 ? 2 : 1), options);
  const { mask, data } = maskSymbol(qr.modules, qr.errorCorrectionLevel.bit);
  qr.modules.data = data;
  qr.maskPattern = mask;
  return qr;
}

/**
 * PNG QR code (error correction M) of `text` as a data URL, written straight from the module matrix:
 * qrcode's toDataURL renders RGBA through pngjs and blocks the event loop for several milliseconds.
 */
export function qrPngDataUrl(text: string): string {
  const { modules } = qrSymbol(text);
  return `data:image/png;base64,${encodePng(modules.size, modules.data).toString('base64')}`;
}
