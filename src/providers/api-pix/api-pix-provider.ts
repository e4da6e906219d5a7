import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../provider.js';
import { ApiPixError, createApiPixClient } from './api-pix-client.js';
import { newCobTxid, toValor, truncate } from './api-pix-ids.js';
import { apiPixPayouts, PAYOUT_POLL_TASK } from './api-pix-payouts.js';
import { refundPollTask, REFUND_POLL_TASK, requestDevolucao } from './api-pix-refunds.js';

/** API Pix `CobGerada` (the fields we read). */
interface CobGerada {
  txid?: string;
  pixCopiaECola?: string;
}

/**
 * A PSP speaking BACEN's API Pix v2 (PIX_PROVIDER=api-pix; docs/providers.md): charges are cobs,
 * refunds are devoluções, payouts use the PSP-specific endpoint in api-pix-payouts.ts. Received PIX
 * and devolução results arrive through the webhook route (api-pix-webhook.routes.ts), devolução and
 * payout results also by polling, and all of them enter the core through its idempotent functions.
 */
export function createApiPixProvider(rt: Runtime): PixProvider {
  const cfg = rt.config.apiPix;
  if (!cfg) throw new Error('PIX_PROVIDER=api-pix without its API_PIX_* settings');
  const client = createApiPixClient(cfg);
  const payouts = apiPixPayouts(rt, client);
  return {
    name: 'api-pix',
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
    requestRefund: (input) => requestDevolucao(rt, client, input),
    sendPayout: payouts.sendPayout,
    getPayout: payouts.getPayout,
    tasks: () => ({ [REFUND_POLL_TASK]: refundPollTask(rt, client), [PAYOUT_POLL_TASK]: payouts.pollTask }),
  };
}
