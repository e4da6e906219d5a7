import type { Executor } from '../../../src/platform/db.js';
import type { PaymentNotification } from '../../../src/providers/port/provider.port.js';

export interface CallResult {
  status: number;
  body: any;
  raw: string;
  /** The answer replayed a stored idempotent answer. */
  replayed: boolean;
  /**
   * An attempt got no answer (the process died, the database went away): what it did is unknown.
   * Merchant POSTs carry an Idempotency-Key and are retried until answered, so only the operator's
   * calls end uncertain (status 0); the workload then reads the state back instead of assuming.
   */
  uncertain: boolean;
}

/** How the workload reaches the service: in-process (app.inject) or a real process over HTTP. */
export interface Client {
  merchant(key: string, method: string, url: string, body?: unknown, idemKey?: string): Promise<CallResult>;
  admin(method: string, url: string, body?: unknown): Promise<CallResult>;
  /** A PSP's payment notification straight into the core (in-process only). */
  notify?(n: PaymentNotification): Promise<any>;
  /** Every merchant POST carries an Idempotency-Key (a retried request must be the same request). */
  readonly alwaysIdempotent: boolean;
  /**
   * Processes die under this client: work already done at the provider may reach our records only
   * after a recovery sweep, so a state seen lagging is left to the final settlement to judge.
   */
  readonly faults: boolean;
  /** The service's database, for reading back what a lost answer did and for the final checks. */
  db: Executor;
}
