// The URL rules at registration (POST /webhooks, and a withdrawal's clientCallbackUrl):
// docs/contract/webhooks.md#webhook-urls. Delivery checks the DNS answer again every time (webhook.client.ts).
import { validationError } from '../platform/errors.js';
import { normalizeWebhookUrl, resolvePublicTarget, TargetRefusedError, type Resolver } from './webhook-url.rules.js';

/** Registration must not hang on a slow resolver; an unanswered name is judged at delivery instead. */
const RESOLVE_TIMEOUT_MS = 2000;

/**
 * Returns the normalised URL to store, or throws VALIDATION_ERROR `<field>: <reason>`.
 * A name is refused only when it resolves and an address it resolves to is not public; when it does
 * not resolve (yet, or here), it is accepted — every delivery resolves and checks it again.
 */
export async function registrableUrl(
  raw: string,
  opts: { field?: string; allowPrivate: boolean; resolver?: Resolver },
): Promise<string> {
  const field = opts.field ?? 'url';
  const check = normalizeWebhookUrl(raw, { allowPrivate: opts.allowPrivate });
  if (!check.ok) throw validationError(field, check.reason);
  if (opts.allowPrivate) return check.url;
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, RESOLVE_TIMEOUT_MS)));
  try {
    await Promise.race([resolvePublicTarget(check.url, { allowPrivate: false, resolver: opts.resolver }), giveUp]);
  } catch (err) {
    if (err instanceof TargetRefusedError) throw validationError(field, 'must be a public address');
    // Resolution failed: accepted (see above).
  } finally {
    clearTimeout(timer);
  }
  return check.url;
}
