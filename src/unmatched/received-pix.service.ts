import type { Charge } from '../charges/charge.schemas.js';
import { receivePayment } from '../charges/charge-payment.service.js';
import { withTransaction } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { AmountBreakdown } from '../providers/port/cobv.port.js';
import type { Runtime } from '../runtime.js';
import { postUnmatchedReceived } from './unmatched.ledger.js';
import { toUnmatchedPayment, type UnmatchedPayment } from './unmatched.schemas.js';
import { insertUnmatched, selectUnmatchedByEndToEnd } from './unmatched.sql.js';

/** A PIX the provider itself reports as received (never a notification's word: see api-pix-confirm.client.ts). */
export interface ReceivedPix {
  endToEndId: string;
  /** Absent when the payer paid the key without a code. */
  txid: string | null;
  amount: number;
  /** The PSP's `horario`: a credited charge's paidAt. */
  receivedAt: Date;
  payer: { name: string | null; taxId: string | null } | null;
  /** What the amount is made of (`componentesValor`), when the PSP reports it: a due-date charge's parts. */
  components?: AmountBreakdown | null;
}

export type ReceivedOutcome =
  | { kind: 'CREDITED'; charge: Charge }
  | { kind: 'UNMATCHED'; unmatchedPayment: UnmatchedPayment };

/** The core's final refusals of a PIX for a charge: no such txid, another amount. */
const isNoMatch = (err: unknown) => err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'VALIDATION_ERROR');

/**
 * The one path of every received PIX, whoever reports it (the webhook after confirmation, the
 * reconciliation sweep, the simulator): the charge with its txid is credited through receivePayment
 * (idempotent by endToEndId), and a PIX no charge takes — no txid, an unknown txid, another amount, a
 * second PIX to a charge already paid — becomes an unmatched payment, also once per endToEndId. So the
 * same PIX arriving by notification and by the sweep, even at once, is recorded exactly once.
 */
export async function acceptReceivedPix(rt: Runtime, pix: ReceivedPix): Promise<ReceivedOutcome> {
  const known = await selectUnmatchedByEndToEnd(rt.pool, pix.endToEndId);
  if (known) return { kind: 'UNMATCHED', unmatchedPayment: toUnmatchedPayment(known) };
  if (pix.txid !== null) {
    try {
      const charge = await receivePayment(rt, {
        txid: pix.txid, endToEndId: pix.endToEndId, amount: pix.amount, paidAt: pix.receivedAt, payer: pix.payer, components: pix.components,
      });
      // A charge paid by another PIX answers itself unchanged: this one is a second payment.
      if (charge.end2endId === pix.endToEndId) return { kind: 'CREDITED', charge };
    } catch (err) {
      if (!isNoMatch(err)) throw err;
    }
  }
  return { kind: 'UNMATCHED', unmatchedPayment: await recordUnmatched(rt, pix) };
}

async function recordUnmatched(rt: Runtime, pix: ReceivedPix): Promise<UnmatchedPayment> {
  const row = await withTransaction(rt.pool, async (tx) => {
    const inserted = await insertUnmatched(tx, {
      end2endId: pix.endToEndId, txid: pix.txid, amount: pix.amount,
      payerName: pix.payer?.name ?? null, payerTaxId: pix.payer?.taxId ?? null, receivedAt: pix.receivedAt,
    });
    if (inserted) await postUnmatchedReceived(tx, inserted);
    return inserted;
  });
  if (row) return toUnmatchedPayment(row);
  // Recorded meanwhile by a concurrent delivery of the same PIX.
  const again = await selectUnmatchedByEndToEnd(rt.pool, pix.endToEndId);
  if (again) return toUnmatchedPayment(again);
  throw new Error('a PIX neither credited nor recorded as unmatched');
}
