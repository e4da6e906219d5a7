import type { TaskList } from 'graphile-worker';
import { saoPauloDate, saoPauloDayStart } from '../../calendar/index.js';
import { selectMerchant } from '../../merchants/merchant.sql.js';
import { storeName } from '../../merchants/merchant.service.js';
import { buildRecurrenceBrCode, formatCents, newEndToEndId, newRecurrenceId, payloadLocation, withRecurrence } from '../../pix/index.js';
import { AppError } from '../../platform/errors.js';
import { enqueue } from '../../platform/jobs.js';
import type { Runtime } from '../../runtime.js';
import { recordDebit } from '../../subscriptions/subscription-debit.service.js';
import { selectCycleByTxid, selectSubscriptionView, type SubscriptionViewRow } from '../../subscriptions/subscription.sql.js';
import type { PixProvider } from '../port/provider.port.js';
import { SIM_ISPB } from './sim-charges.provider.js';
import { locationToken } from './sim-location.crypto.js';

/*
 * The simulator as a PSP and as the payer's bank for Pix Automático (docs/contract/subscriptions.md#simulator): a
 * recurrence gets an idRec and, on the QR journeys, a code whose template 80 is a location Pixgate serves itself
 * (sim-payer.routes.ts); the payer's bank debits each cycle's charge on its due date, and on each retry day asked,
 * unless the simulator's controls (sim-subscriptions.routes.ts) drove it first.
 */

const DEBIT_TASK = 'sim:subscriptions:debit';
/** What the simulated network calls a platform that has no CNPJ of its own on file (the receiver must be a company). */
const SIM_RECEIVER_CNPJ = '99999999000191';

/** The payer's bank debits at the start of the São Paulo day; one pending debit per charge (a retry replaces it). */
const scheduleDebit = (rt: Runtime, txid: string, date: string) =>
  enqueue(rt.pool, DEBIT_TASK, { txid }, { runAt: saoPauloDayStart(date), jobKey: `${DEBIT_TASK}:${txid}` });

export function simulatedRecurrences(rt: Runtime): Pick<PixProvider, 'createRecurrence' | 'issueCycleCharge' | 'retryCycleCharge' | 'cancelRecurrence'> {
  return {
    createRecurrence: async (input) => {
      const providerRef = newRecurrenceId(SIM_ISPB, input.retryPolicy === 'THREE_IN_7_DAYS', new Date());
      if (input.journey === 'PUSH') return { providerRef, brCode: null }; // the request goes to the payer's bank: nothing to scan
      const location = payloadLocation(rt.config.publicUrl, 'rec', locationToken(rt, input.subscriptionId));
      const brCode = input.journey === 'QR'
        ? buildRecurrenceBrCode({ recurrenceLocation: location, merchantName: input.merchant.name, merchantCity: input.merchant.city })
        : withRecurrence(input.firstCharge!.brCode, location);
      return { providerRef, brCode };
    },
    issueCycleCharge: (input) => scheduleDebit(rt, input.txid, input.dueDate),
    retryCycleCharge: (input) => scheduleDebit(rt, input.txid, input.date),
    // The debits already scheduled find their charges settled and do nothing.
    cancelRecurrence: async () => {},
  };
}

/**
 * The payer's bank's scheduled debit: PAID (a simulated payer always has the funds; the controls make it fail) — of a
 * charge still PENDING only. One that ended since it was scheduled (failed for good, or cancelled with its
 * subscription) is not debited: a payment taken then would be credited as a late one, to a cycle that is over.
 */
async function debitOnSchedule(rt: Runtime, txid: string): Promise<void> {
  const cycle = await selectCycleByTxid(rt.pool, txid);
  if (!cycle?.charge_id) return;
  const now = new Date();
  await recordDebit(rt, cycle.charge_id, { date: saoPauloDate(now), outcome: 'PAID', endToEndId: newEndToEndId(SIM_ISPB, now) }, { onlyPending: true })
    .catch((err: unknown) => {
      if (!(err instanceof AppError && err.code === 'INVALID_STATE')) throw err;
    });
}

export function simulatorSubscriptionTasks(rt: Runtime): TaskList {
  return {
    [DEBIT_TASK]: (payload) => debitOnSchedule(rt, String((payload as { txid?: unknown }).txid)),
  };
}

const PERIODICIDADE = { WEEKLY: 'SEMANAL', MONTHLY: 'MENSAL', QUARTERLY: 'TRIMESTRAL', SEMIANNUAL: 'SEMESTRAL', ANNUAL: 'ANUAL' } as const;

/**
 * BACEN's `RecPayload` of a subscription (API Pix 2.9.0): what the payer's bank reads at the code's recurrence
 * location before the payer authorizes — the recurrence id, the contract and payer, the calendar, the amount, the
 * retry policy, the receiver and the status history.
 */
export async function recPayloadOf(rt: Runtime, sub: SubscriptionViewRow): Promise<Record<string, unknown>> {
  const merchant = (await selectMerchant(rt.pool, sub.merchant_id))!;
  const taxId = sub.cu_tax_id ?? '';
  const cnpj = /^\d{14}$/.test(merchant.kyc_tax_id ?? '') ? merchant.kyc_tax_id! : SIM_RECEIVER_CNPJ;
  const history = [{ status: 'CRIADA', data: sub.created_at.toISOString() }];
  if (sub.authorized_at) history.push({ status: 'APROVADA', data: sub.authorized_at.toISOString() });
  return {
    idRec: sub.provider_ref,
    vinculo: {
      contrato: sub.contract,
      ...(sub.description ? { objeto: sub.description } : {}),
      devedor: { ...(taxId.length === 14 ? { cnpj: taxId } : { cpf: taxId }), nome: (sub.cu_name ?? '').slice(0, 140) },
    },
    calendario: {
      dataInicial: sub.start_date, ...(sub.end_date ? { dataFinal: sub.end_date } : {}), periodicidade: PERIODICIDADE[sub.frequency],
    },
    valor: sub.amount !== null ? { valorRec: formatCents(sub.amount) } : { valorMinimoRecebedor: formatCents(sub.min_amount!) },
    politicaRetentativa: sub.retry_policy === 'THREE_IN_7_DAYS' ? 'PERMITE_3R_7D' : 'NAO_PERMITE',
    recebedor: { cnpj, nome: (storeName(merchant) ?? merchant.user_name).slice(0, 140), ispbParticipante: SIM_ISPB },
    atualizacao: history,
  };
}

/** The subscription behind a location's id (null for none), for the payload route. */
export const subscriptionAt = (rt: Runtime, id: string) => selectSubscriptionView(rt.pool, id, null);
