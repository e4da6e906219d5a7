import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from node:crypto 4 KiB at a time and each used once: a call to the CSPRNG per id was most of
 * an id's cost (≈ 6 µs, one per webhook attempt recorded; crypto.randomUUID pools the same way).
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
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
