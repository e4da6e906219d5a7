import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';

// Exports run in a process of their own (src/statement/statement-export.service.ts), over a real socket here.
let t: TestContext;
let base: string;
beforeAll(async () => {
  t = await createTestContext();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => { await t?.close(); });

const LINES = 100_000;

/** A merchant with `lines` statement lines, as ledger_post writes them (times in milliseconds, as now_ms()), as bench/statement.ts seeds. */
async function bigStatement(lines = LINES): Promise<{ key: string }> {
  const m = await t.merchant();
  const { rows: [first] } = await t.pool.query<{ id: number }>("SELECT nextval('ledger_transactions_id_seq') AS id");
  await t.pool.query(
    `INSERT INTO ledger_transactions (id, kind, reference, created_at)
     SELECT $1::bigint + s, 'CHARGE_PAYMENT', 'test_' || s, date_trunc('milliseconds', now()) - (($2 - s) * interval '1 second') FROM generate_series(1, $2) s`,
    [first!.id, lines]);
  await t.pool.query(
    `INSERT INTO statement_lines (account_id, seq, id, transaction_id, amount, balance_after, created_at)
     SELECT $3, s, statement_line_id(s), $1::bigint + s, 1000, s * 1000, date_trunc('milliseconds', now()) - (($2 - s) * interval '1 second') FROM generate_series(1, $2) s`,
    [first!.id, lines, `${m.id}:available`]);
  await t.pool.query(`SELECT setval('ledger_transactions_id_seq', $1)`, [first!.id + lines]);
  return m;
}

/** This process's export processes (children running the export bundle). */
const exportProcesses = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').split(' ').filter(Boolean)
  .filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('statement-export-');
    } catch {
      return false;
    }
  });

describe('an export runs in a process of its own', () => {
  it('streams the whole file; a download left half-way stops its process; a process that dies fails the download', async () => {
    const m = await bigStatement();
    const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${m.key}` } });

    const whole = await (await get('/me/statement.csv')).text();
    expect(whole.split('\r\n')).toHaveLength(1 + LINES + 1); // header, lines, the empty string after the last CRLF
    expect(exportProcesses()).toEqual([]);

    const left = new AbortController();
    const res = await fetch(`${base}/me/statement.ofx`, { headers: { authorization: `Bearer ${m.key}` }, signal: left.signal });
    const reader = res.body!.getReader();
    await reader.read();
    expect(exportProcesses()).toHaveLength(1);
    left.abort();
    await eventually(() => exportProcesses().length === 0, 5000);

    const killed = await get('/me/statement.csv');
    const body = killed.body!.getReader();
    await body.read();
    const [pid] = exportProcesses();
    process.kill(Number(pid), 'SIGKILL');
    await expect((async () => { for (;;) if ((await body.read()).done) return; })()).rejects.toThrow();
  });

  it('runs at most two at once per process; the others wait their turn and complete', async () => {
    const m = await bigStatement(30_000);
    let most = 0;
    const sampler = setInterval(() => { most = Math.max(most, exportProcesses().length); }, 20);
    const files = await Promise.all(Array.from({ length: 4 }, async () =>
      (await fetch(`${base}/me/statement.csv`, { headers: { authorization: `Bearer ${m.key}` } })).text()));
    clearInterval(sampler);
    for (const f of files) expect(f.split('\r\n')).toHaveLength(1 + 30_000 + 1);
    expect(most).toBe(2);
  });
});
