import { settleRefund } from '../../refunds/refund-settlement.service.js';
import { selectPendingRefundRequest } from '../../refunds/refund.sql.js';
import type { Runtime } from '../../runtime.js';
import { acceptReceivedPix } from '../../unmatched/received-pix.service.js';
import { settleUnmatchedRefund } from '../../unmatched/unmatched.service.js';
import { selectRefunding } from '../../unmatched/unmatched.sql.js';
import type { ApiPixClient } from './api-pix.client.js';
import { confirmDevolucao, confirmPix, unconfirmedNotifications, type UnconfirmedReason } from './api-pix-confirm.client.js';
import { fromPspId, fromValor } from './api-pix-ids.rules.js';
import { refundOutcome } from './api-pix-refunds.provider.js';

/** A received PIX as API Pix's webhook sends it (`Pix`): only a hint of which PIX to ask the PSP about. */
export interface PixEntry {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  devolucoes?: Array<{ id: string }> | { id: string };
}

export interface WebhookLog {
  warn(obj: object, msg: string): void;
}

/** PSP lookups of one notification in flight at once: a batch is confirmed quickly without flooding the PSP. */
const CONFIRM_CONCURRENCY = 4;

function unconfirmed(log: WebhookLog, reason: UnconfirmedReason, what: object, msg: string): void {
  unconfirmedNotifications.inc({ reason });
  log.warn({ ...what, reason }, msg);
}

/** The refund of ours (`ref…`) or unmatched payment (`unp…`) a devolução id names, if it still waits for a result on this PIX. */
async function settleDevolucao(rt: Runtime, api: ApiPixClient, endToEndId: string, id: string, log: WebhookLog): Promise<void> {
  const refundId = fromPspId('ref', id);
  const waiting = refundId
    ? (await selectPendingRefundRequest(rt.pool, refundId))?.end2end_id === endToEndId
    : (await selectRefunding(rt.pool, id))?.end2end_id === endToEndId;
  if (!waiting) return; // settled already, or not requested by us (a MED devolução, another system on the account)
  const confirmed = await confirmDevolucao(api, endToEndId, id);
  if (!confirmed.ok) return unconfirmed(log, confirmed.reason, { endToEndId, devolucaoId: id }, 'API Pix webhook: devolução not confirmed by the PSP; nothing changed');
  const outcome = refundOutcome(confirmed.value);
  if (!outcome) return; // still EM_PROCESSAMENTO at the PSP, whatever the notification said: polling follows it
  if (refundId) await settleRefund(rt, refundId, outcome);
  else await settleUnmatchedRefund(rt, id, outcome);
}

/**
 * The API Pix webhook's body `{ pix: [...] }`. Whoever holds the webhook token can post anything, so
 * each entry is only a hint: the PSP is asked over the authenticated client (`GET /pix/{e2eid}`, and
 * `GET /pix/{e2eid}/devolucao/{id}` per devolução) and only its answer — amount, txid, horario,
 * devolução status — is acted on, through the same idempotent path as the reconciliation sweep. No
 * transaction is open while the PSP is asked. What the PSP does not confirm changes nothing; it is
 * logged and counted. Answers how many entries the PSP confirmed; a failure to record (the database)
 * throws, so the PSP delivers again.
 */
export async function receivePixNotification(rt: Runtime, api: ApiPixClient, body: { pix?: PixEntry[] } | null, log: WebhookLog): Promise<number> {
  const entries = body?.pix ?? [];
  let confirmedCount = 0;
  const one = async (hint: PixEntry) => {
    const confirmed = await confirmPix(api, hint.endToEndId);
    if (!confirmed.ok) {
      return unconfirmed(log, confirmed.reason, { endToEndId: hint.endToEndId }, 'API Pix webhook: PIX not confirmed by the PSP; nothing changed');
    }
    confirmedCount++;
    const pix = confirmed.value;
    if (pix.amount !== fromValor(hint.valor) || pix.txid !== (hint.txid ?? null)) {
      log.warn({ endToEndId: pix.endToEndId }, 'API Pix webhook: the notification differs from the PSP\'s record; the PSP\'s is used');
    }
    await acceptReceivedPix(rt, pix);
    // The spec's example shows `devolucoes` as one object though its schema says array: both are read.
    const devolucoes = hint.devolucoes === undefined ? [] : Array.isArray(hint.devolucoes) ? hint.devolucoes : [hint.devolucoes];
    for (const d of devolucoes) await settleDevolucao(rt, api, pix.endToEndId, d.id, log);
  };
  for (let i = 0; i < entries.length; i += CONFIRM_CONCURRENCY) {
    await Promise.all(entries.slice(i, i + CONFIRM_CONCURRENCY).map(one));
  }
  return confirmedCount;
}
