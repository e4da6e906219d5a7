/**
 * An export in a process of its own (statement-export.service.ts starts it): the job in
 * PIXGATE_STATEMENT_EXPORT, the database in DATABASE_URL, the file on stdout; exits non-zero on a failure,
 * so the download fails instead of looking complete.
 */
import { pipeline } from 'node:stream/promises';
import { createPool } from '../platform/db.js';
import { csvStream, ofxStream } from './statement-export.view.js';
import type { ExportJob } from './statement-export.service.js';

const job = JSON.parse(process.env.PIXGATE_STATEMENT_EXPORT ?? '') as ExportJob;
const pool = createPool(process.env.DATABASE_URL ?? '', 1);
try {
  await pipeline(job.format === 'csv' ? csvStream(pool, job.merchantId, job.account, job.range) : ofxStream(pool, job.merchantId, job.range), process.stdout);
} finally {
  await pool.end();
}
