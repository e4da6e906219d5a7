import type { QRCodeSegment } from 'qrcode';

type Mode = 'numeric' | 'alphanumeric' | 'byte';
const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

/** Versions 1–9, 10–26 and 27–40 use different character-count widths (ISO/IEC 18004 table 3). */
export type VersionClass = 0 | 1 | 2;
const COUNT_BITS: Record<Mode, readonly [number, number, number]> = {
  numeric: [10, 12, 14],
  alphanumeric: [9, 11, 13],
  byte: [8, 16, 16],
};

// Indexes into the per-mode arrays below, in the order ties are broken.
const NUMERIC = 0;
const ALNUM = 1;
const BYTE = 2;
const MODE_NAMES = ['numeric', 'alphanumeric', 'byte'] as const;
const IS_ALPHANUMERIC = new Uint8Array(128);
for (const ch of ALPHANUMERIC) IS_ALPHANUMERIC[ch.charCodeAt(0)] = 1;

// Costs are in sixths of a bit so partial groups stay integral: a digit is 10/3 bits, an alphanumeric 11/2.
const utf8Length = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

function segment(mode: Mode, data: string): QRCodeSegment {
  return mode === 'byte' ? { mode, data: Buffer.from(data, 'utf8') } : { mode, data };
}

/**
 * Splits `text` into numeric / alphanumeric / byte segments of minimal bit length (to within the
 * rounding of partial groups) by dynamic programming over the three modes. qrcode's own optimiser
 * reaches the same segmentation through a Dijkstra over a segment graph that costs ~0.5 ms per BR Code;
 * this runs once per charge create, hence plain numbers and typed arrays.
 */
export function segmentText(text: string, versionClass: VersionClass): QRCodeSegment[] {
  const chars = [...text];
  const header = MODE_NAMES.map((m) => (4 + COUNT_BITS[m][versionClass]) * 6);
  const cost = Float64Array.from(header);
  const next = new Float64Array(3);
  const charCost = new Float64Array(3);
  // cameFrom[3i + m]: the mode of character i − 1 on the cheapest encoding that puts character i in mode m.
  const cameFrom = new Uint8Array(chars.length * 3);
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    charCost[NUMERIC] = cp >= 0x30 && cp <= 0x39 ? 20 : Infinity;
    charCost[ALNUM] = cp < 128 && IS_ALPHANUMERIC[cp] ? 33 : Infinity;
    charCost[BYTE] = utf8Length(cp) * 48;
    for (let mode = 0; mode < 3; mode++) {
      let best = cost[mode]!;
      let from = mode;
      for (let prev = 0; prev < 3; prev++) {
        // Switching pays the new segment's header; the closed segment is rounded up to whole bits.
        const switched = Math.ceil(cost[prev]! / 6) * 6 + header[mode]!;
        if (prev !== mode && switched < best) {
          best = switched;
          from = prev;
        }
      }
      next[mode] = best + charCost[mode]!;
      cameFrom[3 * i + mode] = from;
    }
    cost.set(next);
  }

  let mode = cost[ALNUM]! < cost[NUMERIC]! ? ALNUM : NUMERIC;
  if (cost[BYTE]! < cost[mode]!) mode = BYTE;
  const segments: QRCodeSegment[] = [];
  let end = chars.length;
  for (let i = chars.length - 1; i >= 0; i--) {
    const prev = i > 0 ? cameFrom[3 * i + mode]! : -1;
    if (prev !== mode) {
      segments.unshift(segment(MODE_NAMES[mode]!, chars.slice(i, end).join('')));
      end = i;
      if (prev !== -1) mode = prev;
    }
  }
  return segments;
}
