/**
 * ISO/IEC 18004 §7.8.3 mask penalty on bit-packed lines: choosing a mask scores the symbol eight times,
 * and module by module that was two thirds of a QR image's cost. Here a row (or a column) of the
 * symbol is a run of 32-bit words — bit j of word w is module 32w + j — so each rule tests 32 modules
 * per operation. The score is the same as the module-by-module definition (test/pix/qr.test.ts checks
 * it against one).
 */

/** Rows and columns of a symbol of `size` modules, `words` words per line, rows first. */
export interface Lines {
  size: number;
  words: number;
  /** size × words row words, then size × words column words. */
  bits: Uint32Array;
}

export function emptyLines(size: number): Lines {
  const words = Math.ceil(size / 32);
  return { size, words, bits: new Uint32Array(2 * size * words) };
}

/** Packs a size × size module matrix (1 = dark) into its rows and columns. */
export function toLines(m: Uint8Array, size: number, out = emptyLines(size)): Lines {
  const { words, bits } = out;
  bits.fill(0);
  const cols = size * words;
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      if (m[i * size + j] === 1) {
        const r = i * words + (j >>> 5);
        const c = cols + j * words + (i >>> 5);
        bits[r] = bits[r]! | (1 << (j & 31));
        bits[c] = bits[c]! | (1 << (i & 31));
      }
    }
  }
  return out;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The bits of positions 0 .. n-1 that fall in word w (as an int32). */
function valid(n: number, w: number): number {
  const left = n - 32 * w;
  return left >= 32 ? -1 : left <= 0 ? 0 : (1 << left) - 1;
}

/**
 * N1 (runs of five or more modules of one colour: 3, plus 1 per module beyond five) and N3 (40 per
 * window dark-light-dark-dark-dark-light-dark beside four light modules) of the line at `off`.
 * Word by word, written out with local variables: a position's rules look at most 10 modules ahead,
 * so word w needs only words w and w + 1.
 */
function linePoints(bits: Uint32Array, off: number, size: number, words: number): number {
  let points = 0;
  let carry = 0; // bit 31 of the previous word's run5
  for (let w = 0; w < words; w++) {
    const lo = bits[off + w]! | 0;
    const hi = w + 1 < words ? bits[off + w + 1]! | 0 : 0;
    const hi2 = w + 2 < words ? bits[off + w + 2]! | 0 : 0;
    // same: module b equals module b + 1 (this word, and the next word's low bits).
    const sLo = ~(lo ^ ((lo >>> 1) | (hi << 31))) & valid(size - 1, w);
    const sHi = ~(hi ^ ((hi >>> 1) | (hi2 << 31))) & valid(size - 1, w + 1);
    // run5: modules b .. b + 4 one colour. A run of L >= 5 modules holds L - 4 of them and scores L - 2.
    const run5 = sLo & ((sLo >>> 1) | (sHi << 31)) & ((sLo >>> 2) | (sHi << 30)) & ((sLo >>> 3) | (sHi << 29));
    points += popcount(run5) + 2 * popcount(run5 & ~((run5 << 1) | carry));
    carry = run5 >>> 31;
    const a1 = (lo >>> 1) | (hi << 31);
    const a2 = (lo >>> 2) | (hi << 30);
    const a3 = (lo >>> 3) | (hi << 29);
    const a4 = (lo >>> 4) | (hi << 28);
    const a5 = (lo >>> 5) | (hi << 27);
    const a6 = (lo >>> 6) | (hi << 26);
    const a7 = (lo >>> 7) | (hi << 25);
    const a8 = (lo >>> 8) | (hi << 24);
    const a9 = (lo >>> 9) | (hi << 23);
    const a10 = (lo >>> 10) | (hi << 22);
    const windows = valid(size - 10, w);
    const finderThenLight = lo & ~a1 & a2 & a3 & a4 & ~a5 & a6 & ~a7 & ~a8 & ~a9 & ~a10 & windows; // 10111010000
    const lightThenFinder = ~lo & ~a1 & ~a2 & ~a3 & a4 & ~a5 & a6 & a7 & a8 & ~a9 & a10 & windows; // 00001011101
    points += 40 * (popcount(finderThenLight) + popcount(lightThenFinder));
  }
  return points;
}

export function penalty(lines: Lines): number {
  const { size, words, bits } = lines;
  let points = 0;
  let dark = 0;
  for (let a = 0; a < 2 * size; a++) points += linePoints(bits, a * words, size, words);
  for (let a = 0; a < size; a++) {
    const row = a * words;
    for (let w = 0; w < words; w++) dark += popcount(bits[row + w]! | 0);
    if (a === size - 1) break;
    // N2: each 2×2 block of one colour scores 3 (rows a and a + 1, columns b and b + 1).
    const next = row + words;
    for (let w = 0; w < words; w++) {
      const r = bits[row + w]! | 0;
      const n = bits[next + w]! | 0;
      const rHi = w + 1 < words ? bits[row + w + 1]! | 0 : 0;
      const nHi = w + 1 < words ? bits[next + w + 1]! | 0 : 0;
      const block = ~(r ^ ((r >>> 1) | (rHi << 31))) & ~(n ^ ((n >>> 1) | (nHi << 31))) & ~(r ^ n) & valid(size - 1, w);
      points += 3 * popcount(block);
    }
  }
  return points + 10 * Math.floor(Math.abs((dark * 100) / (size * size) - 50) / 5);
}
