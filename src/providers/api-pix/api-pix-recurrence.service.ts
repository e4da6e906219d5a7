import { saoPauloDate } from '../../calendar/index.js';
import { AppError } from '../../platform/errors.js';
import type { Runtime } from '../../runtime.js';
import { failCycleCharge, recordDebit } from '../../subscriptions/subscription-debit.service.js';
import { authorizeSubscription, cancelByPayer, rejectSubscription } from '../../subscriptions/subscription-state.service.js';
import {
  selectAwaitingRefs, selectCycleByTxid, selectDueUnpaidTxids, selectSubscription, selectSubscriptionIdByRef,
} from '../../subscriptions/subscription.sql.js';
import { acceptReceivedPix } from '../../unmatched/received-pix.service.js';
import type { ApiPixClient } from './api-pix.client.js';
import { ask, toReceivedPix, unconfirmedNotifications, type PspPix } from './api-pix-confirm.client.js';
import type { CobR, Rec } from './api-pix-recurrences.provider.js';
import type { WebhookLog } from './api-pix-webhook.service.js';

/*
 * What the PSP says of Pix Automático (docs/contract/subscriptions.md#at-the-provider): `webhookrec` and `webhookcobr`
 * notifications name a recurrence or a cycle's charge; each is only a hint, confirmed by `GET /rec/{idRec}` or
 * `GET /cobr/{txid}` over the authenticated client, and only the PSP's answer is applied — through the same core
 * functions as the simulator's payer bank, each idempotent. A sweep asks the same questions for what no notification
 * brought: the recurrences still waiting for the payer, and the cycle charges still unpaid on or after their due date.
 */

/** A change the core refuses because the subscription moved on meanwhile (another notification, the merchant): nothing to do. */
const unlessMovedOn = (err: unknown) => {
  if (!(err instanceof AppError && err.code === 'INVALID_STATE')) throw err;
};

/** The PSP's record of a recurrence, applied to its subscription (one of ours, found by idRec). */
async function applyRec(rt: Runtime, rec: Rec): Promise<void> {
  const id = typeof rec.idRec === 'string' ? await selectSubscriptionIdByRef(rt.pool, rec.idRec) : undefined;
  const sub = id && (await selectSubscription(rt.pool, id));
  if (!sub) return;
  if (rec.status === 'APROVADA' && sub.status === 'CREATED' && sub.journey !== 'QR_WITH_PAYMENT') {
    // Journey 3 is authorized by its first payment, which arrives as every PIX does.
    await authorizeSubscription(rt, sub.id).catch(unlessMovedOn);
  } else if (rec.status === 'REJEITADA' && sub.status === 'CREATED') {
    await rejectSubscription(rt, sub.id).catch(unlessMovedOn);
  } else if (rec.status === 'CANCELADA' && sub.status === 'ACTIVE') {
    // Cancelled by the merchant through Pixgate is CANCELLED here already; anything else is the payer's side.
    await cancelByPayer(rt, sub.id).catch(unlessMovedOn);
  }
}

/**
 * The PSP's record of a cycle's charge: its failed attempts recorded, its PIX credited, its final failure applied.
 * Failures first: they came before the payment, and a charge once PAID takes no more attempts — so a sweep that learns
 * both at once still lists each (docs/contract/subscriptions.md#cycle-charges: every failed attempt, then the payment).
 */
async function applyCobr(rt: Runtime, cobr: CobR): Promise<void> {
  const cycle = typeof cobr.txid === 'string' ? await selectCycleByTxid(rt.pool, cobr.txid) : undefined;
  if (!cycle?.charge_id) return;
  for (const t of cobr.tentativas ?? []) {
    if ((t.status !== 'REJEITADA' && t.status !== 'EXPIRADA') || typeof t.dataLiquidacao !== 'string' || typeof t.endToEndId !== 'string') continue;
    // BACEN's rejection code is the outcome; an attempt that lapsed unrun is EXPIRED.
    const outcome = typeof t.rejeicao?.codigo === 'string' ? t.rejeicao.codigo : 'EXPIRED';
    await recordDebit(rt, cycle.charge_id, { date: t.dataLiquidacao, outcome, endToEndId: t.endToEndId });
  }
  for (const p of cobr.pix ?? []) {
    const pix = toReceivedPix(p as PspPix);
    if (pix && pix.txid === cycle.txid) await acceptReceivedPix(rt, pix);
  }
  if (cobr.status === 'REJEITADA' || cobr.status === 'EXPIRADA' || cobr.status === 'CANCELADA') await failCycleCharge(rt, cycle.charge_id);
}

const getRec = (api: ApiPixClient, idRec: string) => ask(() => api.find<Rec>(`/rec/${idRec}`, 'GET /rec/{idRec}'));
const getCobr = (api: ApiPixClient, txid: string) => ask(() => api.find<CobR>(`/cobr/${txid}`, 'GET /cobr/{txid}'));

/**
 * Each hint of a notification confirmed by the PSP's GET before it is applied (docs/contract/psp.md): answers how many
 * the PSP confirmed; what it does not is logged and counted, and changes nothing.
 */
async function confirmEach<H, T>(
  hints: H[], same: (value: T, hint: H) => boolean, get: (hint: H) => ReturnType<typeof ask<T>>, apply: (value: T) => Promise<void>,
  unconfirmed: (hint: H, reason: string) => void,
): Promise<number> {
  let confirmed = 0;
  for (const hint of hints) {
    const answer = await get(hint);
    if (!answer.ok || !same(answer.value, hint)) {
      const reason = answer.ok ? 'mismatch' : answer.reason;
      unconfirmedNotifications.inc({ reason });
      unconfirmed(hint, reason);
      continue;
    }
    confirmed++;
    await apply(answer.value);
  }
  return confirmed;
}

/** `POST …/rec` (webhookrec): `{recs: [{idRec, ...}]}`, each confirmed by `GET /rec/{idRec}`. */
export const receiveRecNotification = (rt: Runtime, api: ApiPixClient, body: { recs?: Array<{ idRec: string }> } | null, log: WebhookLog): Promise<number> =>
  confirmEach<{ idRec: string }, Rec>(body?.recs ?? [], (rec, h) => rec.idRec === h.idRec, (h) => getRec(api, h.idRec), (rec) => applyRec(rt, rec),
    (h, reason) => log.warn({ idRec: h.idRec, reason }, 'API Pix webhookrec: recurrence not confirmed by the PSP; nothing changed'));

/** `POST …/cobr` (webhookcobr): `{cobsr: [{txid, ...}]}`, each confirmed by `GET /cobr/{txid}`. */
export const receiveCobrNotification = (rt: Runtime, api: ApiPixClient, body: { cobsr?: Array<{ txid: string }> } | null, log: WebhookLog): Promise<number> =>
  confirmEach<{ txid: string }, CobR>(body?.cobsr ?? [], (cobr, h) => cobr.txid === h.txid, (h) => getCobr(api, h.txid), (cobr) => applyCobr(rt, cobr),
    (h, reason) => log.warn({ txid: h.txid, reason }, 'API Pix webhookcobr: cycle charge not confirmed by the PSP; nothing changed'));

const SWEEP_BATCH = 200;

/**
 * For what no notification brought: the PSP is asked about every recurrence still waiting for the payer and every
 * cycle charge still unpaid on or after its due date, and its answers applied. Runs with the reconciliation sweep.
 */
export async function sweepRecurrences(rt: Runtime, api: ApiPixClient): Promise<void> {
  for (const idRec of await selectAwaitingRefs(rt.pool, SWEEP_BATCH)) {
    const answer = await getRec(api, idRec);
    if (answer.ok) await applyRec(rt, answer.value);
  }
  for (const txid of await selectDueUnpaidTxids(rt.pool, saoPauloDate(new Date()), SWEEP_BATCH)) {
    const answer = await getCobr(api, txid);
    if (answer.ok) await applyCobr(rt, answer.value);
  }
}
