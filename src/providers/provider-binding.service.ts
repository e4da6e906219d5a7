import type { Executor } from '../platform/db.js';
import { bindProviderRow, selectBoundProvider } from './provider-binding.sql.js';

export class ProviderMismatch extends Error {
  constructor(readonly bound: string, readonly given: string) {
    super(
      `This database is bound to the PIX provider "${bound}" and refuses PIX_PROVIDER=${given}: balances made with one ` +
      `provider must never move through another. Start it with PIX_PROVIDER=${bound}, or use a new database for ${given}.`,
    );
    this.name = 'ProviderMismatch';
  }
}

/**
 * docs/contract/running.md#provider-binding: a database is bound to the provider it first ran with, so simulated money can never
 * leave through a real PSP and a worker started without PIX_PROVIDER never handles real payouts as
 * simulated ones. `bind`: the commands that run the service (serve, api, worker) bind a database that is
 * bound to none yet — a new one, or one from before this rule; the others (migrate, the operator CLI)
 * only refuse a mismatch, so preparing a database never chooses its provider by accident.
 */
export async function enforceProviderBinding(db: Executor, provider: string, opts: { bind: boolean }): Promise<void> {
  const bound = opts.bind ? await bindProviderRow(db, provider) : await selectBoundProvider(db);
  if (bound !== null && bound !== provider) throw new ProviderMismatch(bound, provider);
}
