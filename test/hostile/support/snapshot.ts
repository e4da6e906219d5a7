import type pg from 'pg';

/**
 * A fingerprint of everything a request could write: row count and content hash of every table of the
 * application and of the job queue, plus every ledger account's balance (readable when it differs).
 */
// An API key's last_used_at records that it was used (at most once a minute, docs/contract/access.md#api-keys), and
// an API process's heartbeat that it is alive (every second, docs/contract/http.md#idempotency-claims): neither is a write of a request.
const SOURCES: Record<string, string> = {
  'public.api_keys': '(SELECT id, merchant_id, key_hash, last4, name, role, created_by, created_at, revoked_at FROM api_keys)',
  'public.http_process_heartbeats': '(SELECT process_id FROM http_process_heartbeats)',
};
const source = (table: string) => SOURCES[table] ?? table;

export async function snapshot(pool: pg.Pool): Promise<Record<string, string>> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
     WHERE schemaname IN ('public', 'graphile_worker') ORDER BY 1`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const { rows } = await pool.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) AS h FROM ${source(name)} x`,
    );
    out[name] = `${rows[0]!.n} rows, ${rows[0]!.h}`;
  }
  const { rows: balances } = await pool.query<{ account_id: string; balance: string }>(
    'SELECT account_id, sum(amount)::text AS balance FROM ledger_entries GROUP BY account_id ORDER BY account_id',
  );
  for (const b of balances) out[`balance ${b.account_id}`] = b.balance;
  return out;
}
