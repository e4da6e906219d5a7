import type { Executor } from '../../platform/db.js';

/** The end of the last window the sweep listed completely; null on a database's first run. */
export async function selectCoveredUntil(db: Executor, provider: string): Promise<Date | null> {
  const { rows } = await db.query<{ covered_until: Date }>('SELECT covered_until FROM psp_reconcile_progress WHERE provider = $1', [provider]);
  return rows[0]?.covered_until ?? null;
}

/** Never moves back: two sweeps at once (several processes) each only ever advance it. */
export async function advanceCoveredUntil(db: Executor, provider: string, until: Date): Promise<void> {
  await db.query(
    `INSERT INTO psp_reconcile_progress (provider, covered_until) VALUES ($1, $2)
     ON CONFLICT (provider) DO UPDATE SET covered_until = GREATEST(psp_reconcile_progress.covered_until, excluded.covered_until), updated_at = now()`,
    [provider, until],
  );
}
