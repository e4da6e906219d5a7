// Webhook URL rules (docs/contract/webhooks.md#webhook-urls): what may be registered, and where a delivery may go.
// Registration runs the syntactic checks only; the DNS answer is judged again at every
// delivery by resolvePublicTarget, because a name can be repointed at any time.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { isForbiddenAddress } from './address-policy.rules.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Thrown by resolvePublicTarget when the target is refused by policy (not by the network):
 * retrying will not help until the merchant fixes the URL or its DNS.
 */
export class TargetRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TargetRefusedError';
  }
}

const defaultResolver: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true });

/** URL.hostname keeps IPv6 literals bracketed; sockets and isIP want them bare. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** RFC 6761: localhost and *.localhost always mean this machine, whatever DNS says. */
function isLocalhostName(host: string): boolean {
  const h = host.replace(/\.$/, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * Validates a webhook URL and returns its WHATWG-normalised form (the form stored and compared).
 * Reasons are short lower-case phrases, printed by the API as `url: <reason>`.
 */
export function normalizeWebhookUrl(raw: string, opts: { allowPrivate: boolean }): UrlCheck {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'must be a valid URL' };
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: 'must be at most 2048 characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be a valid URL' };
  }
  const schemeOk = url.protocol === 'https:' || (opts.allowPrivate && url.protocol === 'http:');
  if (!schemeOk) return { ok: false, reason: 'must be an https URL' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not contain credentials' };
  // Normalisation can grow the text (percent-encoding, punycode), so measure the stored form too.
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: 'must be at most 2048 characters' };
  if (!opts.allowPrivate) {
    // The URL parser has already turned 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 into 127.0.0.1.
    const host = bareHostname(url);
    if (isIP(host) !== 0 ? isForbiddenAddress(host) : isLocalhostName(host)) {
      return { ok: false, reason: 'must be a public address' };
    }
  }
  return { ok: true, url: url.href };
}

/**
 * Resolves the URL's host and checks every address it resolves to, so that one public answer
 * cannot smuggle in a private one. Returns the address the connection must be pinned to.
 * Throws TargetRefusedError for a policy refusal, a plain Error when resolution fails.
 */
export async function resolvePublicTarget(
  url: string,
  opts: { allowPrivate: boolean; resolver?: Resolver },
): Promise<{ address: string; family: 4 | 6 }> {
  const check = normalizeWebhookUrl(url, { allowPrivate: opts.allowPrivate });
  if (!check.ok) throw new TargetRefusedError(`url ${check.reason}`);
  const host = bareHostname(new URL(check.url));

  const literal = isIP(host);
  if (literal === 4 || literal === 6) return { address: host, family: literal };

  let answers: { address: string; family: number }[];
  try {
    answers = await (opts.resolver ?? defaultResolver)(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    throw new Error(`could not resolve ${host}${code ? ` (${code})` : ''}`);
  }
  if (!Array.isArray(answers) || answers.length === 0) throw new Error(`could not resolve ${host} (no addresses)`);

  let first: { address: string; family: 4 | 6 } | null = null;
  for (const answer of answers) {
    const family = isIP(answer.address);
    // A resolver answer that is not an IP literal would make the socket resolve again: refuse.
    if (family !== 4 && family !== 6) throw new TargetRefusedError(`${host} resolves to an invalid address`);
    // The address itself is never named: the text reaches the merchant (delivery records, registration
    // errors), and an internal address is exactly what a probing merchant must not learn.
    if (!opts.allowPrivate && isForbiddenAddress(answer.address)) throw new TargetRefusedError(`${host} resolves to a non-public address`);
    first ??= { address: answer.address, family };
  }
  if (first === null) throw new Error(`could not resolve ${host} (no addresses)`);
  return first;
}
