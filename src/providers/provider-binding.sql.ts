import type { Executor } from '../platform/db.js';

/** The provider the database is bound to, binding it to `provider` first when it is bound to none. */
export async function bindProviderRow(db: Executor, provider: string): Promise<string> {
  for (;;) {
    // A row another process inserts at the same moment is not in this statement's snapshot: then ask again.
    const { rows } = await db.query<{ provider: string }>(
      `WITH bound AS (INSERT INTO provider_binding (provider) VALUES ($1) ON CONFLICT (singleton) DO NOTHING RETURNING provider)
       SELECT provider FROM bound UNION ALL SELECT provider FROM provider_binding`,
      [provider],
    );
    if (rows[0]) return rows[0].provider;
  }
}

export async function selectBoundProvider(db: Executor): Promise<string | null> {
  const { rows } = await db.query<{ provider: string }>('SELECT provider FROM provider_binding');
  return rows[0]?.provider ?? null;
}
