import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../port/provider.port.js';
import { ApiPixError, createApiPixClient, type ApiPixClient } from './api-pix.client.js';
import { newCobTxid, toValor, truncate } from './api-pix-ids.rules.js';
import { apiPixPayouts, PAYOUT_POLL_TASK } from './api-pix-payouts.provider.js';
import { reconcileTask, RECONCILE_TASK, scheduleReconcile } from './api-pix-reconcile.tasks.js';
import { apiPixRefunds, refundPollTask, REFUND_POLL_TASK } from './api-pix-refunds.provider.js';
import { apiPixUnmatched, UNMATCHED_POLL_TASK, unmatchedPollTask } from './api-pix-unmatched.provider.js';
import { apiPixWebhookRoutes } from './api-pix-webhook.routes.js';

/** The port plus the authenticated client, which the webhook route uses to confirm notifications. */
export interface ApiPixProvider extends PixProvider {
  readonly client: ApiPixClient;
}

/** API Pix `CobGerada` (the fields we read). */
interface CobGerada {
  txid?: string;
  pixCopiaECola?: string;
}

/**
 * A PSP speaking BACEN's API Pix v2 (PIX_PROVIDER=api-pix; docs/providers.md): charges are cobs,
 * refunds are devoluções, payouts use the PSP-specific endpoint in api-pix-payouts.provider.ts. Notifications
 * (api-pix-webhook.routes.ts) are confirmed with the PSP before anything is done; received PIX are also
 * listed by the reconciliation sweep, devolução and payout results polled, and all of them enter the
 * core through its idempotent functions.
 */
export function createApiPixProvider(rt: Runtime): ApiPixProvider {
  const cfg = rt.config.apiPix;
  if (!cfg) throw new Error('PIX_PROVIDER=api-pix without its API_PIX_* settings');
  const client = createApiPixClient(cfg);
  const payouts = apiPixPayouts(rt, client);
  return {
    name: 'api-pix',
    client,
    createCharge: async (input) => {
      const txid = newCobTxid();
      const cob = await client.request<CobGerada>('PUT', `/cob/${txid}`, 'PUT /cob/{txid}', {
        calendario: { expiracao: input.expiresIn },
        valor: { original: toValor(input.amount) },
        chave: cfg.receiverKey ?? input.merchant.pixKey,
        ...(input.description ? { solicitacaoPagador: truncate(input.description, 140) } : {}),
      });
      if (typeof cob.pixCopiaECola !== 'string' || cob.pixCopiaECola === '' || (cob.txid !== undefined && cob.txid !== txid)) {
        throw new ApiPixError('API Pix PUT /cob/{txid}: answer without pixCopiaECola or for another txid', null);
      }
      return { txid, brCode: cob.pixCopiaECola };
    },
    ...apiPixRefunds(rt, client),
    sendPayout: payouts.sendPayout,
    getPayout: payouts.getPayout,
    ...apiPixUnmatched(rt, client),
    tasks: () => ({
      [REFUND_POLL_TASK]: refundPollTask(rt, client), [PAYOUT_POLL_TASK]: payouts.pollTask,
      [UNMATCHED_POLL_TASK]: unmatchedPollTask(rt, client), [RECONCILE_TASK]: reconcileTask(rt, client),
    }),
    scheduleJobs: () => scheduleReconcile(rt),
    routes: { public: apiPixWebhookRoutes(rt, client) },
  };
}
