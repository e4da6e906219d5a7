import { Readable, type Readable as ReadableType } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Executor } from '../platform/db.js';
import type { StatementAccount, StatementLineView } from './statement.schemas.js';
import { availableBalanceAt, exportBatches } from './statement.service.js';
import type { Range } from './statement.sql.js';

/** The exact header row of docs/contract/statement.md#exports. */
export const CSV_COLUMNS = [
  'createdAt', 'account', 'type', 'amount', 'balanceAfter', 'fee', 'chargeId', 'refundId', 'withdrawalId', 'disputeId', 'end2endId', 'description',
] as const;

/**
 * GET /me/statement.csv: RFC 4180 (CRLF, quoted where needed), UTF-8, cents as integers, oldest first.
 * One chunk per batch, as the OFX writer: a stringifier stream would make each line its own write.
 */
export function csvStream(db: Executor, merchantId: string, account: StatementAccount, range: Range): ReadableType {
  const options = { columns: [...CSV_COLUMNS], record_delimiter: 'windows' } as const;
  return Readable.from((async function* () {
    let header = true;
    for await (const batch of exportBatches(db, merchantId, account, range)) {
      yield stringify(batch.map((line) => CSV_COLUMNS.map((c) => line[c] ?? '')), { ...options, header });
      header = false;
    }
    if (header) yield stringify([], { ...options, header }); // no line: the header row alone
  })());
}

/** Reais with a dot from integer cents, without floating point: -1050 → "-10.50". */
export function reais(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** OFX date-time in UTC: 20261122180000.000[0:GMT]. */
export const ofxTime = (iso: string) => `${iso.replace(/[-:T]/g, '').replace('Z', '')}[0:GMT]`;

/** XML text: the three characters that would end it, and control characters that XML 1.0 cannot hold. */
const xmlText = (s: string) =>
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function stmttrn(line: StatementLineView): string {
  return `<STMTTRN><TRNTYPE>${line.amount < 0 ? 'DEBIT' : 'CREDIT'}</TRNTYPE><DTPOSTED>${ofxTime(line.createdAt)}</DTPOSTED>` +
    `<TRNAMT>${reais(line.amount)}</TRNAMT><FITID>${line.id}</FITID><MEMO>${xmlText(line.description.slice(0, 255))}</MEMO></STMTTRN>\n`;
}

const STATUS_OK = '<STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>';

/**
 * GET /me/statement.ofx: an OFX 2.1.1 (XML) bank statement of the available account, one STMTTRN per line,
 * oldest first; LEDGERBAL is the balance at `to` (at the export's time without one). ACCTID is the merchant
 * id without its prefix (OFX allows 22 characters).
 */
export function ofxStream(db: Executor, merchantId: string, range: Range): ReadableType {
  const now = new Date().toISOString();
  return Readable.from((async function* () {
    const batches = exportBatches(db, merchantId, 'available', range);
    const first = await batches.next();
    const start = range.from !== '-infinity' ? new Date(range.from).toISOString() : first.done ? now : first.value[0]!.createdAt;
    const end = range.to !== 'infinity' ? new Date(range.to).toISOString() : now;
    yield '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' +
      '<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n' +
      `<OFX>\n<SIGNONMSGSRSV1><SONRS>${STATUS_OK}<DTSERVER>${ofxTime(now)}</DTSERVER><LANGUAGE>POR</LANGUAGE></SONRS></SIGNONMSGSRSV1>\n` +
      `<BANKMSGSRSV1><STMTTRNRS><TRNUID>0</TRNUID>${STATUS_OK}<STMTRS><CURDEF>BRL</CURDEF>\n` +
      `<BANKACCTFROM><BANKID>PIXGATE</BANKID><ACCTID>${xmlText(merchantId.replace(/^mer_/, ''))}</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>\n` +
      `<BANKTRANLIST><DTSTART>${ofxTime(start)}</DTSTART><DTEND>${ofxTime(end)}</DTEND>\n`;
    let last: StatementLineView | undefined;
    if (!first.done) {
      // One chunk per batch: a million lines are 500 writes, not a million.
      for (let batch: StatementLineView[] | undefined = first.value; batch; batch = (await batches.next()).value || undefined) {
        last = batch[batch.length - 1];
        yield batch.map(stmttrn).join('');
      }
    }
    // The last line before `to` is the last one exported when there is one; otherwise ask.
    const balance = last ? last.balanceAfter : await availableBalanceAt(db, merchantId, range.to);
    yield `</BANKTRANLIST>\n<LEDGERBAL><BALAMT>${reais(balance)}</BALAMT><DTASOF>${ofxTime(end)}</DTASOF></LEDGERBAL>\n` +
      '</STMTRS></STMTTRNRS></BANKMSGSRSV1>\n</OFX>\n';
  })());
}
