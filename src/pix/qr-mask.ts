import type { BitMatrix, QRCodeMaskPattern } from 'qrcode';
import { emptyLines, penalty, toLines, type Lines } from './qr-penalty.js';

// ISO/IEC 18004 §7.8.2 data mask patterns; i = row, j = column.
const PATTERNS: ReadonlyArray<(i: number, j: number) => boolean> = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

// Per symbol size: for each pattern, which modules it flips relative to pattern 0 (never a
// function-pattern module, which `reserved` marks and masking leaves alone), also as packed lines.
interface Delta {
  modules: Uint8Array;
  lines: Lines;
}
const deltaCache = new Map<number, Delta[]>();

function deltasFrom0(size: number, reserved: Uint8Array): Delta[] {
  let deltas = deltaCache.get(size);
  if (!deltas) {
    deltas = PATTERNS.map((pattern) => {
      const modules = new Uint8Array(size * size);
      for (let i = 0; i < size; i++) {
        for (let j = 0; j < size; j++) {
          const pattern0 = (i + j) % 2 === 0;
          modules[i * size + j] = !reserved[i * size + j] && pattern(i, j) !== pattern0 ? 1 : 0;
        }
      }
      return { modules, lines: toLines(modules, size) };
    });
    deltaCache.set(size, deltas);
  }
  return deltas;
}

// ISO/IEC 18004 §7.9.1: the 15-bit format information, BCH(15,5) with generator G15, XORed with a fixed mask.
const G15 = 0b10100110111;
const G15_MASK = 0b101010000010010;

function formatBits(eccBit: number, mask: number): number {
  const data = (eccBit << 3) | mask;
  let rem = data << 10;
  for (let bit = 14; bit >= 10; bit--) if ((rem >> bit) & 1) rem ^= G15 << (bit - 10);
  return ((data << 10) | rem) ^ G15_MASK;
}

/** Writes both copies of the format information, at the positions qrcode's setupFormatInfo uses. */
function setFormatInfo(m: Uint8Array, size: number, eccBit: number, mask: number): void {
  const bits = formatBits(eccBit, mask);
  for (let i = 0; i < 15; i++) {
    const bit = (bits >> i) & 1;
    const vRow = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    m[vRow * size + 8] = bit;
    const hCol = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    m[8 * size + hCol] = bit;
  }
  m[(size - 8) * size + 8] = 1; // the dark module
}

/**
 * The lowest-penalty mask for a symbol that qrcode built with mask pattern 0, and the symbol's modules
 * under that mask (format information rewritten for it) — the same modules qrcode builds when given
 * that mask, without building the symbol a second time. Each mask is scored on bit-packed rows and
 * columns (qr-penalty.ts); the 30 format-information modules keep pattern 0's bits while scoring,
 * which can only tip a near tie.
 */
export function maskSymbol(modules: BitMatrix, eccBit: number): { mask: QRCodeMaskPattern; data: Uint8Array } {
  const { data, reservedBit, size } = modules;
  const deltas = deltasFrom0(size, reservedBit);
  const base = toLines(data, size);
  const candidate = emptyLines(size);
  let best: QRCodeMaskPattern = 0;
  let lowest = Infinity;
  for (const [pattern, delta] of deltas.entries()) {
    for (let k = 0; k < candidate.bits.length; k++) candidate.bits[k] = base.bits[k]! ^ delta.lines.bits[k]!;
    const score = penalty(candidate);
    if (score < lowest) {
      lowest = score;
      best = pattern as QRCodeMaskPattern;
    }
  }
  const flips = deltas[best]!.modules;
  const masked = new Uint8Array(size * size);
  for (let k = 0; k < masked.length; k++) masked[k] = data[k]! ^ flips[k]!;
  if (best !== 0) setFormatInfo(masked, size, eccBit, best);
  return { mask: best, data: masked };
}
