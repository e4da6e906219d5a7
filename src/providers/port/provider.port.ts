import type { FastifyPluginAsync } from 'fastify';
import type { TaskList } from 'graphile-worker';
import type { PixKeyType } from '../../pix/index.js';
import type { AmountBreakdown, CobVValor } from './cobv.port.js';

/**
 * The PIX network port. The core never talks to a PSP directly: it calls these methods from
 * background jobs (after its own transaction committed) — except `createCharge`, which a create
 * request awaits — and receives the PSP's notifications through idempotent core functions:
 * - a received PIX, as the PSP itself reports it (a notification is confirmed first; the sweep lists
 *   them): `acceptReceivedPix(rt, ReceivedPix)` in src/unmatched/received-pix.service.ts, idempotent by
 *   endToEndId — the charge through `receivePayment` (src/charges/charge-payment.service.ts), or an unmatched payment;
 * - a devolução's result (DEVOLVIDO | NAO_REALIZADO): `settleRefund(rt, refundId, RefundOutcome)` in
 *   src/refunds/refund-settlement.service.ts, idempotent by refund id (an unmatched payment's:
 *   `settleUnmatchedRefund`);
 * - an infraction report (MED): `openDispute(rt, { endToEndId })` / `resolveDispute(rt, disputeId,
 *   outcome)` in src/disputes/dispute.service.ts;
 * - payout results by withdrawal id (see the withdrawals slice).
 * The shapes follow BACEN's API Pix v2: cob (charge), pix recebido (payment notification with
 * endToEndId), devolução (EM_PROCESSAMENTO → DEVOLVIDO | NAO_REALIZADO).
 */
export interface PixProvider {
  readonly name: string;
  /**
   * Issues a charge (API Pix `PUT /cob/{txid}`, or `PUT /cobv/{txid}` for a due-date charge): returns the
   * txid and the copy-and-paste BR Code.
   */
  createCharge(input: CreateChargeInput): Promise<ProviderCharge>;
  /**
   * A charge refund's devolução (`GET /pix/{e2eid}/devolucao/{id}`): its state at the PSP, null when the PSP
   * does not know it. While it is PROCESSING the provider reports its result to `settleRefund` itself.
   */
  getRefund(input: RefundRequest): Promise<DevolucaoState | null>;
  /**
   * Asks for the devolução of a received PIX (`PUT /pix/{e2eid}/devolucao/{id}`), idempotent by refundId.
   * Throws PayoutRefused when the PSP refused this request; any other failure may have made it. The core
   * calls it only through askOrSend (payout-send.service.ts), which decides what a refusal proves.
   */
  sendRefund(input: RefundRequest): Promise<DevolucaoState>;
  /**
   * Sends a PIX to a key; idempotent by withdrawalId, so a retried job never pays twice. Throws PayoutRefused
   * when the PSP refused this request; any other failure may have sent it (askOrSend decides what it proves).
   */
  sendPayout(input: PayoutRequest): Promise<PayoutResult>;
  /** The payout's current state at the PSP, for a job that restarts after a crash; null if never sent. */
  getPayout(withdrawalId: string): Promise<PayoutResult | null>;
  /**
   * An unmatched payment's devolução (docs/contract/psp.md#unmatched-payments): its state at the PSP, null when
   * the PSP does not know it. While it is PROCESSING the provider reports its result to `settleUnmatchedRefund`
   * (src/unmatched/unmatched.service.ts) itself, by polling or notification.
   */
  getUnmatchedRefund(input: UnmatchedRefundRequest): Promise<DevolucaoState | null>;
  /** Asks for a devolução of the whole of an unmatched payment, idempotent by devolucaoId; refusals as `sendRefund`. */
  sendUnmatchedRefund(input: UnmatchedRefundRequest): Promise<DevolucaoState>;
  /**
   * Pix Automático (docs/contract/subscriptions.md#at-the-provider): registers a subscription's recurrence
   * (API Pix `rec`, with its location for the QR journeys and the request to the payer's bank for journey 1)
   * and answers its id there and, for the QR journeys, the code the payer scans. Called holding no connection.
   */
  createRecurrence(input: RecurrenceInput): Promise<ProviderRecurrence>;
  /**
   * Issues a cycle's charge of a recurrence (API Pix `PUT /cobr/{txid}`), to be debited on its due date.
   * Idempotent by txid: asked again for a txid it already issued, it issues nothing more.
   */
  issueCycleCharge(input: CycleChargeInput): Promise<void>;
  /** Asks the payer's bank for one more debit attempt of a cycle's charge on `date` (`POST /cobr/{txid}/retentativa/{data}`). */
  retryCycleCharge(input: CycleRetry): Promise<void>;
  /** Cancels a recurrence and the cycle charges not yet paid (`PATCH /rec/{idRec}`, `PATCH /cobr/{txid}`). Idempotent. */
  cancelRecurrence(input: RecurrenceCancel): Promise<void>;
  /**
   * The simulator only: a payer pays the charge's code, through the same core function a PSP's notification
   * reaches (the payment page's test button, docs/contract/checkouts.md#payment-page). A real PSP has none.
   */
  simulatePayment?(chargeId: string): Promise<void>;
  /**
   * Run by `serve` and `api` once the database is migrated, before serving: what the provider keeps in the
   * database and needs at hand (the simulator: the key that signs its payer-side payloads, made at first start).
   */
  prepare?(): Promise<void>;
  /** Background tasks of the provider itself (the simulator's delayed settlements, a PSP's polling). */
  tasks?(): TaskList;
  /** Queues the provider's own periodic jobs at worker start (api-pix: the reconciliation sweep). */
  scheduleJobs?(): Promise<void>;
  /** HTTP routes of the provider itself, which src/composition.ts registers with the others. */
  readonly routes?: ProviderRoutes;
}

/** Where a provider's routes go: the scope decides who may call them. */
export interface ProviderRoutes {
  /** In the merchant scope: an API key or a session, as every merchant route. */
  merchant?: FastifyPluginAsync;
  /** At `/admin/<name>`: the operator's ADMIN_TOKEN. */
  admin?: FastifyPluginAsync;
  /** At `/providers/<name>`, outside both scopes: the PSP's notifications, authenticated by the provider. */
  public?: FastifyPluginAsync;
  /**
   * At the root, outside every scope: what a payer's bank fetches from the PSP itself — the simulator's
   * payload locations (`/pix/v2/cobv/<token>`, `/pix/v2/rec/<token>`) and the key set that signs them (`/pix/v2/jwks`).
   */
  payer?: FastifyPluginAsync;
}

export type RecurrenceJourney = 'QR' | 'QR_WITH_PAYMENT' | 'PUSH';
export type RecurrenceFrequency = 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
export type RecurrenceRetryPolicy = 'NONE' | 'THREE_IN_7_DAYS';

/** A subscription as the provider registers it (API Pix `rec`). Dates are `YYYY-MM-DD`; amounts cents. */
export interface RecurrenceInput {
  subscriptionId: string;
  journey: RecurrenceJourney;
  frequency: RecurrenceFrequency;
  startDate: string;
  endDate: string | null;
  /** Exactly one of them: the same each cycle, or the least a cycle may ask. */
  amount: number | null;
  minAmount: number | null;
  contract: string;
  description: string | null;
  retryPolicy: RecurrenceRetryPolicy;
  /** The payer (API Pix `vinculo.devedor`): CPF (11 digits) or CNPJ (14). */
  payer: { name: string; taxId: string };
  /** The receiving merchant's name and city, as its codes show them. */
  merchant: { name: string; city: string; taxId: string | null };
  /** Journey 3: the immediate charge the composite code pays with the authorization. */
  firstCharge?: ProviderCharge;
  /** Journey 1: where the authorization request goes, and until when it may be answered. */
  payerAccount?: { ispb: string; branch: string; account: string };
  requestExpiresAt?: Date;
}

export interface ProviderRecurrence {
  /** The recurrence's id at the provider (API Pix `idRec`). */
  providerRef: string;
  /** The QR journeys: what the payer scans (a recurrence location in template 80; journey 3 with the first charge). */
  brCode: string | null;
}

export interface CycleChargeInput {
  /** Chosen by the core when it claims the cycle, so that a repeated request names the same charge. */
  txid: string;
  providerRef: string;
  dueDate: string;
  amount: number;
  description: string | null;
  payer: { name: string; taxId: string };
}

export interface CycleRetry {
  txid: string;
  providerRef: string;
  /** The São Paulo day of the new attempt. */
  date: string;
}

export interface RecurrenceCancel {
  providerRef: string;
  /** The cycle charges not yet paid. */
  txids: string[];
}

export interface UnmatchedRefundRequest {
  /** The devolução id (`[a-zA-Z0-9]{1,35}`), new for each attempt. */
  devolucaoId: string;
  endToEndId: string;
  /** Cents: the whole PIX. */
  amount: number;
}

export interface CreateChargeInput {
  chargeId: string;
  amount: number;
  /** Seconds of validity from now (API Pix `calendario.expiracao`). */
  expiresIn: number;
  description: string | null;
  /** The receiving merchant's own key and the name and city shown in the BR Code. */
  merchant: { pixKey: string; name: string; city: string };
  /** A due-date charge (docs/contract/due-date-charges.md#due-date-charges): a `cobv` instead of a `cob`. */
  dueDate?: DueDateChargeInput;
}

/** A `cobv`: its calendar, its valor in BACEN's modalities and its debtor (the customer). */
export interface DueDateChargeInput {
  /** `calendario.dataDeVencimento`, `YYYY-MM-DD`. */
  dueDate: string;
  /** `calendario.validadeAposVencimento`: calendar days after the due date it can still be paid. */
  daysAfterDue: number;
  valor: CobVValor;
  /** `devedor`: the customer's name and CPF (11 digits) or CNPJ (14). */
  debtor: { name: string; taxId: string };
}

export interface ProviderCharge {
  txid: string;
  brCode: string;
}

export interface RefundRequest {
  /** Our refund id; the devolução id at the PSP, so a repeated request is the same devolução. */
  refundId: string;
  chargeId: string;
  /** The received PIX being returned. */
  endToEndId: string;
  /** Cents: always the charge's whole amount (refunds are never partial). */
  amount: number;
}

/** A received PIX as the PSP reports it (API Pix `Pix`: endToEndId, txid, valor, horario, pagador). */
export interface PaymentNotification {
  txid: string;
  endToEndId: string;
  /** Cents; must equal an immediate charge's amount. A due-date charge is credited what arrived. */
  amount: number;
  paidAt: Date;
  payer?: { name?: string | null; taxId?: string | null } | null;
  /** What the amount is made of, as the PSP reports it (`componentesValor`); a due-date charge's only. */
  components?: AmountBreakdown | null;
}

/** A devolução's final state: DEVOLVIDO → COMPLETED, NAO_REALIZADO → FAILED with the PSP's reason. */
export type RefundOutcome = { status: 'COMPLETED' } | { status: 'FAILED'; reason?: string | null };

/** A devolução's state at the PSP: EM_PROCESSAMENTO → PROCESSING, or final. */
export type DevolucaoState = { status: 'PROCESSING' } | RefundOutcome;

export interface PayoutRequest {
  withdrawalId: string;
  amount: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  description: string | null;
  taxId: string | null;
}

export type PayoutResult =
  | { status: 'PROCESSING' }
  | { status: 'COMPLETED'; endToEndId: string }
  | { status: 'FAILED'; reason: string };

/** A payout result that ends the withdrawal. */
export type SettledPayout = Exclude<PayoutResult, { status: 'PROCESSING' }>;

/**
 * Thrown by `sendPayout`, `sendRefund` and `sendUnmatchedRefund` when the PSP refused that send request
 * outright (API Pix 400/422): that request made nothing. Proof that the payout failed only when no other
 * send of the id was begun; after an uncertain send it proves nothing about that one
 * (docs/contract/psp.md#uncertain-payouts, payout-send.service.ts). Any other failure of a send (no answer,
 * a reset, a 5xx) is an uncertain send.
 */
export class PayoutRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PayoutRefused';
  }
}
