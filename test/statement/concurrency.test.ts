import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { lockBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { chainProblems, expectStatementMatchesBalance, type Line } from './support.js';

// Hundreds of mixed postings into few merchants at once, over HTTP through the simulator (with the worker
// settling refunds and payouts meanwhile), then the chain of every account checked against its balance.
const SEED = Number(process.env.STATEMENT_SEED ?? Date.now() % 1_000_000);
const OPS = Number(process.env.STATEMENT_OPS ?? 320);
const CONCURRENCY = 24;

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_REFUND_DELAY_MS: '150', SIM_PAYOUT_DELAY_MS: '150' }); });
afterAll(async () => { await t?.close(); });

/** mulberry32: the run is replayable from its seed (thread timing aside). */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe(`statement chain under concurrent postings (seed ${SEED}, replay with STATEMENT_SEED=${SEED})`, () => {
  it('holds exactly for every account of every merchant, and each ends at its balance', async () => {
    const rnd = random(SEED);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const merchants: Array<{ id: string; key: string }> = [];
    for (let i = 0; i < 4; i++) merchants.push(await t.merchant({ chargeFeeFixed: Math.floor(rnd() * 50), chargeFeeBps: 100, withdrawalFeeFixed: 25 }));
    const paid = new Map<string, string[]>(merchants.map((m) => [m.id, []]));
    const counts: Record<string, number> = {};
    const count = (what: string) => { counts[what] = (counts[what] ?? 0) + 1; };
    const pageProblems: string[] = [];

    const ops: Array<() => Promise<void>> = [];
    for (let i = 0; i < OPS; i++) {
      const m = pick(merchants);
      const r = rnd();
      if (r < 0.45) {
        const others = merchants.filter((x) => x !== m);
        const split = rnd() < 0.3 ? [{ merchantId: pick(others).id, mode: 'PERCENT', value: 1 + Math.floor(rnd() * 30) }] : undefined;
        const amount = 100 + Math.floor(rnd() * 20_000);
        ops.push(async () => {
          const c = await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount, split } });
          expect(c.status, c.raw).toBe(201);
          const p = await t.admin('POST', `/admin/simulator/charges/${c.body.data.id}/pay`);
          expect(p.status, p.raw).toBe(200);
          paid.get(m.id)!.push(c.body.data.id);
          count('payment');
        });
      } else if (r < 0.6) {
        ops.push(async () => {
          const id = pick(paid.get(m.id)!.length ? paid.get(m.id)! : ['none']);
          const res = await t.request('POST', `/transparents/refund?id=${id}`, { key: m.key });
          count(`refund ${res.status === 200 ? 'ok' : res.body.error}`);
        });
      } else if (r < 0.75) {
        const amount = 100 + Math.floor(rnd() * 4_000);
        const pixKey = rnd() < 0.3 ? 'someone@fail.test' : 'payout@example.com';
        ops.push(async () => {
          const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount, pixKey, pixKeyType: 'EMAIL' } });
          count(`withdrawal ${res.status === 201 ? 'ok' : res.body.error}`);
        });
      } else if (r < 0.87) {
        const outcome = pick(['ACCEPTED', 'REJECTED', 'LATER']);
        ops.push(async () => {
          const id = pick(paid.get(m.id)!.length ? paid.get(m.id)! : ['none']);
          const d = await t.admin('POST', `/admin/simulator/charges/${id}/dispute`);
          count(`dispute ${d.status === 200 ? 'ok' : d.body.error}`);
          if (d.status === 200 && outcome !== 'LATER') await t.admin('POST', `/admin/simulator/disputes/${d.body.data.id}/resolve`, { outcome });
        });
      } else {
        const account = pick(['available', 'pending', 'blocked']);
        ops.push(async () => {
          // A page read while postings run is a consistent stretch of the chain.
          const res = await t.request('GET', `/me/statement?account=${account}&limit=50`, { key: m.key });
          expect(res.status).toBe(200);
          const lines = [...(res.body.data as Line[])].reverse();
          const start = lines[0] ? lines[0].balanceAfter - lines[0].amount : 0;
          pageProblems.push(...chainProblems(lines, `${m.id} ${account} mid-run`, start));
          count('statement read');
        });
      }
    }

    // The hot merchant: its available row held for a moment while payments arrive, so credits are left
    // pending and folded later (migration 0006) — the case the chain must survive.
    const hold = async () => {
      const client = await t.pool.connect();
      try {
        await client.query('BEGIN');
        await lockBalance(client, merchants[0]!.id, 'available');
        await new Promise((r) => setTimeout(r, 1500));
        // On the holding connection: with the pool full of requests waiting for this row (debits, statement
        // reads folding it), asking the pool for a second connection would wait forever.
        const pending = await client.query('SELECT count(*)::int AS n FROM ledger_pending_credits');
        counts['pending credits seen while held'] = pending.rows[0].n;
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    const hot = Array.from({ length: 30 }, () => async () => {
      const m = merchants[0]!;
      const c = await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1_000 } });
      await t.admin('POST', `/admin/simulator/charges/${c.body.data.id}/pay`);
      paid.get(m.id)!.push(c.body.data.id);
      count('hot payment');
    });
    ops.splice(Math.floor(OPS / 3), 0, hold, ...hot);

    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < ops.length) await ops[next++]!();
    }));

    // Open disputes resolved, refunds and payouts settled by the worker: nothing left in flight.
    const open = await t.pool.query<{ id: string }>("SELECT id FROM disputes WHERE status = 'OPEN'");
    await Promise.all(open.rows.map((d) => t.admin('POST', `/admin/simulator/disputes/${d.id}/resolve`, { outcome: pick(['ACCEPTED', 'REJECTED']) })));
    await eventually(async () => {
      const { rows } = await t.pool.query(`SELECT (SELECT count(*) FROM refunds WHERE status = 'PENDING') + (SELECT count(*) FROM withdrawals WHERE status IN ('PENDING', 'PROCESSING')) AS n`);
      return Number(rows[0].n) === 0;
    }, 30_000, 100);

    expect(pageProblems).toEqual([]);
    let lines = 0;
    for (const m of merchants) {
      const all = await expectStatementMatchesBalance(t, m.key);
      lines += all.available.length + all.pending.length + all.blocked.length;
      const types = new Set([...all.available, ...all.pending, ...all.blocked].map((l) => l.type));
      counts[`types of ${m.id.slice(0, 8)}`] = types.size;
    }
    console.log(`seed ${SEED}: ${lines} statement lines`, counts);
    expect(counts['pending credits seen while held']).toBeGreaterThan(0);
    expect(lines).toBeGreaterThan(OPS / 2);
    expect(await verifyLedger(t.pool)).toEqual([]);
  }, 240_000);
});
