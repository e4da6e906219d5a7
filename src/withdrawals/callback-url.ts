import { validationError } from '../platform/errors.js';
import { normalizeWebhookUrl, resolvePublicTarget, TargetRefusedError, type Resolver } from '../webhooks/webhook-url.js';

// A resolver that never answers must not hold a withdrawal request; delivery checks the target again anyway.
const RESOLVE_TIMEOUT_MS = 2000;

/**
 * A withdrawal's clientCallbackUrl follows the webhook URL rules (decisions part 14) and is returned in
 * its normalised form. The host is resolved too, and refused only when DNS answers with a forbidden
 * address: when resolution fails or times out (machines without outside DNS) the URL is accepted,
 * because every delivery resolves and checks it again before connecting.
 */
export async function checkCallbackUrl(raw: string, opts: { allowPrivate: boolean; resolver?: Resolver }): Promise<string> {
  const check = normalizeWebhookUrl(raw, { allowPrivate: opts.allowPrivate });
  if (!check.ok) throw validationError('clientCallbackUrl', check.reason);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), RESOLVE_TIMEOUT_MS);
  });
  try {
    await Promise.race([resolvePublicTarget(check.url, opts), timeout]);
  } catch (err) {
    if (err instanceof TargetRefusedError) throw validationError('clientCallbackUrl', 'must be a public address');
  } finally {
    clearTimeout(timer);
  }
  return check.url;
}
