import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes drawn 4 KiB at a time (as crypto.randomUUID keeps its own): a request makes three or four ids, and
// each randomBytes call was a system call of its own (≈ 8 µs). Every byte is used once.
const pool = new Uint8Array(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

/** Uniform random base62 text: bytes >= 248 are dropped so that `% 62` has no bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'chg' | 'cust' | 'whk' | 'wd' | 'ref' | 'dsp' | 'evt' | 'dlv' | 'mer' | 'key' | 'usr' | 'ses' | 'chk' | 'plk' | 'logo' | 'sub';

/** Opaque, random, URL-safe ids with a type prefix (docs/contract/http.md#ids). */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(22)}`;
