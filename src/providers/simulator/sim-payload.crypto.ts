import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { decryptSecret, deriveKey, encryptSecret } from '../../platform/secrets.js';
import type { Runtime } from '../../runtime.js';
import { insertPayloadKey, selectPayloadKey } from './sim-payload-key.sql.js';

/**
 * The payer-side payloads a PSP serves at a location are JWS (BACEN's Manual de Segurança do Pix): the
 * payer's bank fetches the key set named by the header's `jku` and checks the signature before it shows the
 * charge. The simulator plays that PSP with one PS256 key, made at the first start of `serve` or `api` (the
 * provider's `prepare`; or the first time a process needs it, as test processes do) and kept in the database
 * (the private half sealed with ENCRYPTION_KEY), so every process signs with it and a payer's bank that cached
 * the key set keeps verifying after a restart. Every payload kind (`cobv`, `rec`) signs here.
 */

const ALG = 'PS256';
const SEAL_PURPOSE = 'payload-signing-key';

/** The public key set at `<PUBLIC_URL>/pix/v2/jwks`. */
export const jwksUrl = (publicUrl: string) => `${publicUrl}/pix/v2/jwks`;

interface Loaded {
  kid: string;
  publicJwk: JWK;
  privateKey: CryptoKey | Uint8Array;
}

export interface PayloadSigner {
  /** `{keys: [the public JWK]}` as served at `jwksUrl`. */
  jwks(): Promise<{ keys: JWK[] }>;
  /** The compact JWS of a JSON payload, header `{alg: PS256, kid, jku}`. */
  sign(payload: object): Promise<string>;
}

async function makeKey(rt: Runtime): Promise<void> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const sealed = encryptSecret(deriveKey(rt.config.encryptionKey, SEAL_PURPOSE), JSON.stringify(await exportJWK(privateKey)));
  await insertPayloadKey(rt.pool, { kid, public_jwk: { ...publicJwk, kid, alg: ALG, use: 'sig' }, private_jwk: sealed });
}

async function load(rt: Runtime): Promise<Loaded> {
  let row = await selectPayloadKey(rt.pool);
  if (!row) {
    await makeKey(rt);
    row = (await selectPayloadKey(rt.pool))!;
  }
  const privateJwk = JSON.parse(decryptSecret(deriveKey(rt.config.encryptionKey, SEAL_PURPOSE), row.private_jwk)) as JWK;
  return { kid: row.kid, publicJwk: row.public_jwk as JWK, privateKey: await importJWK(privateJwk, ALG) };
}

/** One signer per process: the key is read (or made) once, on first use. */
export function payloadSigner(rt: Runtime): PayloadSigner {
  let loaded: Promise<Loaded> | null = null;
  const key = () => {
    loaded ??= load(rt).catch((err: unknown) => {
      loaded = null; // a database hiccup is retried by the next request
      throw err;
    });
    return loaded;
  };
  return {
    jwks: async () => ({ keys: [(await key()).publicJwk] }),
    sign: async (payload) => {
      const { kid, privateKey } = await key();
      return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: ALG, kid, jku: jwksUrl(rt.config.publicUrl) })
        .sign(privateKey);
    },
  };
}
