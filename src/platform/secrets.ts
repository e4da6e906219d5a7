import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Derived once per (master, purpose): every webhook delivery opens its endpoint's secret.
const derived = new Map<string, Buffer>();

/** A purpose-bound key derived from the operator's ENCRYPTION_KEY, so one secret never serves two uses. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  const id = `${master.toString('hex')}:${purpose}`;
  let key = derived.get(id);
  if (!key) derived.set(id, (key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `pixgate:${purpose}`, 32))));
  return key;
}

/** AES-256-GCM; the stored text is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function decryptSecret(key: Buffer, stored: string): string {
  const [version, iv, tag, data] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unrecognised encrypted secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
