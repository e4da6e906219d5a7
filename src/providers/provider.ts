import type { PixKeyType } from '../pix/index.js';

/**
 * The PIX network port. The core never talks to a PSP directly: it calls these methods from
 * background jobs (after its own transaction committed) and receives the PSP's notifications through
 * idempotent core functions (payment by endToEndId, refund and payout results by their own ids).
 * The shapes follow BACEN's API Pix v2: cob (charge), pix recebido (payment notification with
 * endToEndId), devolução (EM_PROCESSAMENTO → DEVOLVIDO | NAO_REALIZADO).
 */
export interface PixProvider {
  readonly name: string;
  /** Issues a charge (API Pix `PUT /cob/{txid}`): returns the txid and the copy-and-paste BR Code. */
  createCharge(input: CreateChargeInput): Promise<ProviderCharge>;
  /** Asks for a devolução of a received PIX (`PUT /pix/{e2eid}/devolucao/{id}`); the result arrives later. Idempotent by refundId. */
  requestRefund(input: RefundRequest): Promise<void>;
  /** Sends a PIX to a key; idempotent by withdrawalId, so a retried job never pays twice. */
  sendPayout(input: PayoutRequest): Promise<PayoutResult>;
  /** The payout's current state at the PSP, for a job that restarts after a crash; null if never sent. */
  getPayout(withdrawalId: string): Promise<PayoutResult | null>;
}

export interface CreateChargeInput {
  chargeId: string;
  amount: number;
  expiresAt: Date;
  description: string | null;
  /** The receiving merchant's own key and the name and city shown in the BR Code. */
  merchant: { pixKey: string; name: string; city: string };
}

export interface ProviderCharge {
  txid: string;
  brCode: string;
}

export interface RefundRequest {
  refundId: string;
  chargeId: string;
  endToEndId: string;
  amount: number;
}

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
