import type { Runtime } from '../../runtime.js';
import type { PixProvider } from '../port/provider.port.js';
import { ApiPixError, createApiPixClient, type ApiPixClient } from './api-pix.client.js';
import { newDynamicTxid } from '../../pix/index.js';
import { toValor, truncate } from './api-pix-ids.rules.js';
import { apiPixPayouts, PAYOUT_POLL_TASK } from './api-pix-payouts.provider.js';
import { apiPixRecurrences } from './api-pix-recurrences.provider.js';
import { reconcileTask, RECONCILE_TASK, scheduleReconcile } from './api-pix-reconcile.tasks.js';
import { apiPixRefunds, refundPollTask, REFUND_POLL_TASK } from './api-pix-refunds.provider.js';
import { apiPixUnmatched, UNMATCHED_POLL_TASK, unmatchedPollTask } from './api-pix-unmatched.provider.js';
import { apiPixWebhookRoutes } from './api-pix-webhook.routes.js';

/** The port plus the authenticated client, which the webhook route uses to confirm notifications. */
export interface ApiPixProvider extends PixProvider {
  readonly client: ApiPixClient;
}

/** `devedor`: a CPF has 11 digits, a CNPJ 14 (BACEN's PessoaFisica / PessoaJuridica); the name as BACEN bounds it. */
const debtor = (d: { name: string; taxId: string }) =>
  d.taxId.length === 11 ? { cpf: d.taxId, nome: truncate(d.name, 200) } : { cnpj: d.taxId, nome: truncate(d.name, 200) };

/** API Pix `CobGerada` / `CobVGerada` (the fields we read). */
interface CobGerada {
  txid?: string;
  pixCopiaECola?: string;
}

/**
 * A PSP speaking BACEN's API Pix v2 (PIX_PROVIDER=api-pix; docs/providers.md): charges are cobs (cobvs with a due date),
 * refunds are devoluções, payouts use the PSP-specific endpoint in api-pix-payouts.provider.ts, subscriptions
 * are Pix Automático's rec and cobr (api-pix-recurrences.provider.ts). Notifications
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
      const txid = newDynamicTxid();
      const chave = cfg.receiverKey ?? input.merchant.pixKey;
      const solicitacao = input.description ? { solicitacaoPagador: truncate(input.description, 140) } : {};
      // A due-date charge is a cobv in BACEN's modalities (docs/contract/due-date-charges.md#api-pix); the PSP's
      // pixCopiaECola is its BR Code either way.
      const [op, body] = input.dueDate
        ? ['PUT /cobv/{txid}', {
          calendario: { dataDeVencimento: input.dueDate.dueDate, validadeAposVencimento: input.dueDate.daysAfterDue },
          devedor: debtor(input.dueDate.debtor), valor: input.dueDate.valor, chave, ...solicitacao,
        }] as const
        : ['PUT /cob/{txid}', { calendario: { expiracao: input.expiresIn }, valor: { original: toValor(input.amount) }, chave, ...solicitacao }] as const;
      const cob = await client.request<CobGerada>('PUT', `/${input.dueDate ? 'cobv' : 'cob'}/${txid}`, op, body);
      if (typeof cob.pixCopiaECola !== 'string' || cob.pixCopiaECola === '' || (cob.txid !== undefined && cob.txid !== txid)) {
        throw new ApiPixError(`API Pix ${op}: answer without pixCopiaECola or for another txid`, null);
      }
      return { txid, brCode: cob.pixCopiaECola };
    },
    ...apiPixRefunds(rt, client),
    sendPayout: payouts.sendPayout,
    getPayout: payouts.getPayout,
    ...apiPixUnmatched(rt, client),
    ...apiPixRecurrences(rt, client),
    tasks: () => ({
      [REFUND_POLL_TASK]: refundPollTask(rt, client), [PAYOUT_POLL_TASK]: payouts.pollTask,
      [UNMATCHED_POLL_TASK]: unmatchedPollTask(rt, client), [RECONCILE_TASK]: reconcileTask(rt, client),
    }),
    scheduleJobs: () => scheduleReconcile(rt),
    routes: { public: apiPixWebhookRoutes(rt, client) },
  };
}
