import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseCsv } from 'csv-parse/sync';
import { parseSync as parseOfx } from 'ofx-js';
import { createTestContext, type TestContext } from '../support/context.js';
import { createCharge, expectError, pay, type Merchant } from '../charges/support.js';
import { reais } from '../../src/statement/statement-export.view.js';
import { allLines, type Line } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ SIM_PAYOUT_DELAY_MS: '600000' }); });
afterAll(async () => { await t?.close(); });

const HEADER = 'createdAt,account,type,amount,balanceAfter,fee,chargeId,refundId,withdrawalId,disputeId,end2endId,description';

async function story(m: Merchant) {
  for (const amount of [1_234, 100_000, 5]) await pay(t, (await createCharge(t, m, { amount: Math.max(amount, 100) })).id);
  const w = await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 50_001, pixKey: 'payout@example.com', pixKeyType: 'EMAIL' } });
  expect(w.status).toBe(201);
  return allLines(t, m.key);
}

describe('GET /me/statement.csv', () => {
  it('is RFC 4180 with the exact header, oldest first, cents as integers, the same lines as the JSON statement', async () => {
    const m = await t.merchant({ chargeFeeBps: 150, withdrawalFeeFixed: 99 });
    const lines = await story(m);
    const res = await t.request('GET', '/me/statement.csv', { key: m.key });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.raw.split('\r\n')[0]).toBe(HEADER);
    expect(res.raw.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(res.raw, { columns: true, relax_quotes: false }) as Record<string, string>[];
    const asCsv = (l: Line): Record<string, string> => Object.fromEntries(HEADER.split(',').map((c) => [c, String((l as unknown as Record<string, unknown>)[c] ?? '')]));
    expect(rows).toEqual(lines.map(asCsv));
    expect(rows.map((r) => r.type)).toEqual(['CHARGE_PAID', 'CHARGE_PAID', 'CHARGE_PAID', 'WITHDRAWAL']);
    expect(rows[3]).toMatchObject({ amount: '-50100', fee: '99' });

    const pending = await t.request('GET', '/me/statement.csv?account=pending', { key: m.key });
    const pendingRows = parseCsv(pending.raw, { columns: true }) as Record<string, string>[];
    expect(pendingRows.map((r) => [r.account, r.type, r.amount, r.balanceAfter])).toEqual([['pending', 'WITHDRAWAL', '50100', '50100']]);
  });

  it('takes from (inclusive) and to (exclusive), and validates like the JSON list', async () => {
    const m = await t.merchant();
    const lines = await story(m);
    const res = await t.request('GET', `/me/statement.csv?from=${lines[1]!.createdAt}&to=${lines[3]!.createdAt}`, { key: m.key });
    const rows = parseCsv(res.raw, { columns: true }) as Record<string, string>[];
    const want = lines.filter((l) => l.createdAt >= lines[1]!.createdAt && l.createdAt < lines[3]!.createdAt);
    expect(rows.map((r) => r.createdAt)).toEqual(want.map((l) => l.createdAt));
    expectError(await t.request('GET', '/me/statement.csv?account=x', { key: m.key }), 400, 'VALIDATION_ERROR', 'account: must be one of available, pending, blocked');
    expectError(await t.request('GET', '/me/statement.csv?to=x', { key: m.key }), 400, 'VALIDATION_ERROR', 'to: must be a valid date-time');
    const empty = await t.request('GET', '/me/statement.csv?account=blocked', { key: m.key });
    expect(empty.raw).toBe(`${HEADER}\r\n`);
  });
});

describe('GET /me/statement.ofx', () => {
  it('is an OFX 2.1.1 bank statement of the available account that an independent parser reads back', async () => {
    const m = await t.merchant({ chargeFeeFixed: 7 });
    const lines = await story(m);
    const res = await t.request('GET', '/me/statement.ofx', { key: m.key });
    expect(res.status).toBe(200);
    expect(res.raw.startsWith('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<?OFX OFXHEADER="200" VERSION="211"')).toBe(true);
    const ofx = parseOfx(res.raw).OFX;
    const stmt = ofx.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(stmt.CURDEF).toBe('BRL');
    expect(stmt.BANKACCTFROM.ACCTID).toBe(m.id.replace(/^mer_/, ''));
    const trns = [stmt.BANKTRANLIST.STMTTRN].flat();
    expect(trns.map((x: Record<string, string>) => [x.TRNTYPE, x.TRNAMT, x.FITID, x.MEMO])).toEqual(
      lines.map((l) => [l.amount < 0 ? 'DEBIT' : 'CREDIT', reais(l.amount), l.id, l.description]),
    );
    expect(trns[0].DTPOSTED).toBe(`${lines[0]!.createdAt.replace(/[-:T]/g, '').replace('Z', '')}[0:GMT]`);
    expect(stmt.LEDGERBAL.BALAMT).toBe(reais(lines.at(-1)!.balanceAfter));
    // Amounts as the PSP's report writes them, reais with a dot, exact for any cents.
    expect(trns.map((x: Record<string, string>) => x.TRNAMT)).toEqual(['12.27', '999.93', '0.93', '-500.01']);
  });

  it('LEDGERBAL is the balance at `to`, also when no line falls in the range', async () => {
    const m = await t.merchant();
    const lines = await story(m);
    const at = lines[2]!.createdAt;
    const upTo = parseOfx((await t.request('GET', `/me/statement.ofx?to=${at}`, { key: m.key })).raw).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    const before = lines.filter((l) => l.createdAt < at);
    expect([upTo.BANKTRANLIST.STMTTRN].flat().length).toBe(before.length);
    expect(upTo.LEDGERBAL.BALAMT).toBe(reais(before.at(-1)!.balanceAfter));
    const none = parseOfx((await t.request('GET', `/me/statement.ofx?from=${at}&to=${at}`, { key: m.key })).raw).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(none.BANKTRANLIST.STMTTRN).toBeUndefined();
    expect(none.LEDGERBAL.BALAMT).toBe(reais(before.at(-1)!.balanceAfter));
  });

  it('reais() never goes through floating point', () => {
    expect([0, 1, -1, 99, 100, -100, 123_456_789, 9_007_199_254_740_991].map(reais)).toEqual(
      ['0.00', '0.01', '-0.01', '0.99', '1.00', '-1.00', '1234567.89', '90071992547409.91'],
    );
  });
});
