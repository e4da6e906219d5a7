import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { ConnectionUriError, type ConnectionSpec } from './multi-host-uri.js';

/** What to try on one host, in order: TLS options, or false for a plain connection. */
export type SslAttempt = ConnectionOptions | false;

const home = (file: string) => join(process.env.HOME || homedir(), '.postgresql', file);
const readIfExists = (file: string | undefined) => (file && existsSync(file) ? readFileSync(file) : undefined);

/**
 * libpq's sslmode as TLS options: `require` encrypts without checking the certificate (unless a root
 * certificate file exists, where libpq then checks the chain like verify-ca), `verify-ca` checks the
 * chain, `verify-full` the chain and the host name; `prefer` tries TLS then plain, `allow` the reverse.
 * Client certificates and the root certificate default to ~/.postgresql/ as with libpq.
 */
export function sslAttempts(spec: ConnectionSpec): SslAttempt[] {
  if (spec.sslmode === 'disable') return [false];
  const client: ConnectionOptions = {};
  const cert = readIfExists(spec.sslcert ?? home('postgresql.crt'));
  const key = readIfExists(spec.sslkey ?? home('postgresql.key'));
  if (cert && key) Object.assign(client, { cert, key });
  else if (spec.sslcert && !cert) throw new ConnectionUriError(`DATABASE_URL: certificate file "${spec.sslcert}" does not exist`);

  const rootFile = spec.sslrootcert ?? home('root.crt');
  const system = rootFile === 'system';
  const ca = system ? undefined : readIfExists(rootFile);
  const unchecked: ConnectionOptions = { ...client, rejectUnauthorized: false };
  let mode = spec.sslmode;
  if (mode === 'require' && (ca || system)) mode = 'verify-ca';
  if ((mode === 'verify-ca' || mode === 'verify-full') && !ca && !system) {
    throw new ConnectionUriError(`DATABASE_URL: sslmode=${mode} needs a root certificate: "${rootFile}" does not exist (sslrootcert)`);
  }
  const checked: ConnectionOptions = { ...client, rejectUnauthorized: true, ...(ca ? { ca } : {}) };
  switch (mode) {
    case 'allow': return [false, unchecked];
    case 'prefer': return [unchecked, false];
    case 'require': return [unchecked];
    case 'verify-ca': return [{ ...checked, checkServerIdentity: () => undefined }];
    default: return [checked];
  }
}

/**
 * TLS options for one host: with `hostaddr` the socket goes to the address while the certificate must
 * name the host, so the name travels in the TLS options (pg spreads them over its own).
 */
export function forHost(attempt: SslAttempt, host: string, hostaddr: string | undefined, sni: boolean): SslAttempt {
  if (attempt === false) return false;
  const named = hostaddr ? { host, ...(sni ? { servername: host } : {}) } : {};
  return { ...attempt, ...named };
}
