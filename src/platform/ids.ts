import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 text: bytes >= 248 are dropped so that `% 62` has no bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'chg' | 'cust' | 'whk' | 'wd' | 'ref' | 'dsp' | 'evt' | 'dlv' | 'mer' | 'key' | 'usr' | 'ses' | 'chk' | 'plk' | 'logo' | 'sub';

/** Opaque, random, URL-safe ids with a type prefix (docs/contract/http.md#ids). */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(22)}`;
