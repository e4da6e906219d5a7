/**
 * An export in a process of its own (statement-export.service.ts starts it): the job in
 * PIXGATE_STATEMENT_EXPORT, the database in DATABASE_URL, the file on stdout; exits non-zero on a failure,
 * so the download fails instead of looking complete. It first takes the merchant's export lock on the one
 * connection it holds throughout (docs/contract/statement.md#exports); held by another export, it exits
 * EXPORT_BUSY_EXIT_CODE before writing a byte.
 */
import { pipeline } from 'node:stream/promises';
import { createPool } from '../platform/db.js';
import { csvStream, ofxStream } from './statement-export.view.js';
import { EXPORT_BUSY_EXIT_CODE } from './statement-export.rules.js';
import { tryExportLock, unlockExport } from './statement.sql.js';
import type { ExportJob } from './statement-export.service.js';

const LOCK_WAIT_MS = 2000;
const job = JSON.parse(process.env.PIXGATE_STATEMENT_EXPORT ?? '') as ExportJob;
const pool = createPool(process.env.DATABASE_URL ?? '', 1);
// Checked out for the whole export: an idle pooled connection could be closed under the lock, releasing it.
const db = await pool.connect();
/**
 * A download the client left, or whose process died, frees its lock only when the server sees its connection
 * close, a moment after: the merchant's next export waits that moment out instead of being refused.
 */
async function takeExportLock(): Promise<boolean> {
  for (const deadline = Date.now() + LOCK_WAIT_MS; ; await new Promise((r) => setTimeout(r, 100))) {
    if (await tryExportLock(db, job.merchantId)) return true;
    if (Date.now() > deadline) return false;
  }
}
try {
  if (!(await takeExportLock())) process.exitCode = EXPORT_BUSY_EXIT_CODE;
  else {
    await pipeline(job.format === 'csv' ? csvStream(db, job.merchantId, job.account, job.range) : ofxStream(db, job.merchantId, job.range), process.stdout);
    await unlockExport(db, job.merchantId);
  }
} finally {
  db.release();
  await pool.end();
}
