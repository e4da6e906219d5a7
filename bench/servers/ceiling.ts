/**
 * The ceilings charge creation is compared with, served like Pixgate (own process, Fastify 5, a `pg`
 * pool of the same size) so that the ratio isolates what Pixgate adds:
 * - POST /bare: parse the same JSON body, answer a small JSON (no database);
 * - POST /insert: one INSERT (its own transaction, committed) per request;
 * - POST /qr: the QR PNG data URL of a BR Code, nothing else.
 * No logger: these are floors of cost, not products.
 */
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPool } from '../../src/platform/db.js';

// The QR encoder of the checkout under test (BENCH_PIXGATE_ROOT), so a before/after run compares it too.
const pix = (await (process.env.PIXGATE_ROOT
  ? import(pathToFileURL(join(process.env.PIXGATE_ROOT, 'src/pix/index.ts')).href)
  : import('../../src/pix/index.js'))) as typeof import('../../src/pix/index.js');
const { buildStaticBrCode, newTxid, qrPngDataUrl } = pix;

const pool = createPool(process.env.DATABASE_URL!, 20);
await pool.query(`CREATE TABLE IF NOT EXISTS bench_ceiling (
  id text PRIMARY KEY, amount bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);

// Distinct codes made up front, so /qr measures the image alone (no caching can help it either).
const brCodes = Array.from({ length: 1000 }, () => buildStaticBrCode({
  pixKey: crypto.randomUUID(), amount: 1000, merchantName: 'Loja Bench', merchantCity: 'SAO PAULO', txid: newTxid(), description: null,
}));
let n = 0;

const app = Fastify({ logger: false });
app.get('/health', async () => ({ status: 'ok' }));
app.post('/bare', async (req, reply) => reply.code(201).send({ success: true, data: { amount: (req.body as { amount: number }).amount } }));
app.post('/insert', async (req, reply) => {
  const id = `chg_${randomBytes(12).toString('base64url')}`;
  await pool.query('INSERT INTO bench_ceiling (id, amount) VALUES ($1, $2)', [id, (req.body as { amount: number }).amount]);
  return reply.code(201).send({ success: true, data: { id } });
});
app.post('/qr', async (_req, reply) => reply.code(201).send({ success: true, data: { imageBase64: qrPngDataUrl(brCodes[n++ % brCodes.length]!) } }));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
