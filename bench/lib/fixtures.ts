import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { buildStaticBrCode, newTxid } from '../../src/pix/index.js';
import { newId } from '../../src/platform/ids.js';
import { ADMIN_TOKEN } from './env.js';
import { HttpClient } from './http.js';

/** Setup through the public API (not measured): merchants, keys, charges, payments, endpoints. */
export class Fixtures {
  readonly admin: HttpClient;
  readonly api: HttpClient;

  constructor(readonly base: string) {
    this.admin = new HttpClient(base, { maxSockets: 16, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    this.api = new HttpClient(base, { maxSockets: 16 });
  }

  async merchant(fields: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
    const m = await this.admin.json('POST', '/admin/merchants', {
      userName: 'bench', email: 'bench@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja Bench' },
      pixKey: { type: 'CHAVE_ALEATORIA', key: randomUUID() }, ...fields,
    }, 201);
    const k = await this.admin.json('POST', `/admin/merchants/${m.data.id}/api-keys`, undefined, 201);
    return { id: m.data.id, key: k.data.key };
  }

  merchants(n: number): Promise<Array<{ id: string; key: string }>> {
    return pool(Array.from({ length: n }, (_, i) => i), 8, () => this.merchant());
  }

  async charge(key: string, amount = 1000): Promise<string> {
    const c = await this.api.json('POST', '/transparents/create', { method: 'PIX', amount }, 201, { authorization: `Bearer ${key}` });
    return c.data.id;
  }

  /** `n` charges, charge i made by keys[i % keys.length]. */
  charges(keys: string[], n: number, amount = 1000): Promise<string[]> {
    return pool(Array.from({ length: n }, (_, i) => keys[i % keys.length]!), 12, (key) => this.charge(key, amount));
  }

  pay(chargeId: string): Promise<unknown> {
    return this.admin.json('POST', `/admin/simulator/charges/${chargeId}/pay`);
  }

  async endpoint(key: string, url: string, events: string[]): Promise<string> {
    const e = await this.api.json('POST', '/webhooks', { url, events }, 201, { authorization: `Bearer ${key}` });
    return e.data.id;
  }

  close(): void {
    this.admin.close();
    this.api.close();
  }
}

/** Maps `items` through `fn` with at most `concurrency` at a time, keeping the order. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  }));
  return out;
}

/**
 * Charges for the payment benchmarks, written straight into the database in batches — what the
 * payment path reads of a charge, without paying for thousands of creates in setup. Real BR Codes,
 * fee 0 (net = amount), due in a day; no expiry job (none would be due during a run anyway).
 */
export async function stockCharges(db: pg.Pool, merchantIds: string[], n: number, amount = 1000): Promise<string[]> {
  const { rows } = await db.query<{ id: string; pix_key: string }>('SELECT id, pix_key FROM merchants WHERE id = ANY ($1)', [merchantIds]);
  const keys = new Map(rows.map((r) => [r.id, r.pix_key]));
  const ids: string[] = [];
  for (let start = 0; start < n; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, n - start) }, (_, j) => {
      const merchantId = merchantIds[(start + j) % merchantIds.length]!;
      const txid = newTxid();
      const brCode = buildStaticBrCode({ pixKey: keys.get(merchantId)!, amount, merchantName: 'Loja Bench', merchantCity: 'SAO PAULO', txid, description: null });
      return { id: newId('chg'), merchantId, txid, brCode };
    });
    await db.query(
      `INSERT INTO charges (id, merchant_id, amount, txid, br_code, fee, net_amount, expires_at)
       SELECT c.id, c.m, $5, c.txid, c.br, 0, $5, now_ms() + interval '1 day'
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS c(id, m, txid, br)`,
      [batch.map((b) => b.id), batch.map((b) => b.merchantId), batch.map((b) => b.txid), batch.map((b) => b.brCode), amount],
    );
    ids.push(...batch.map((b) => b.id));
  }
  return ids;
}
