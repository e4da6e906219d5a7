// A worker process that SIGKILLs itself mid-payout: run by crash-sigkill.test.ts as a child process.
// argv: <database url> <point: afterProcessing | afterSend | inProcess> [api key]
// inProcess: a `serve` process (API and worker) creates a withdrawal with the API key, starts it itself after
// the commit, and dies as its first send begins.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { buildHttp, createRuntime, runWorker } from '../../src/composition.js';

const [databaseUrl, point, apiKey] = process.argv.slice(2);
const config = loadConfig(
  { ADMIN_TOKEN: 'unused'.padEnd(32, '-'), ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', SIM_PAYOUT_DELAY_MS: '20' },
  { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-dying-')) },
);
const rt = createRuntime(config, createPool(databaseUrl!, 4));
const real = rt.provider;
const die = () => process.kill(process.pid, 'SIGKILL');
rt.provider = {
  ...real,
  // Dying as the send begins is dying after PROCESSING committed with the send recorded, before anything was sent.
  sendPayout: async (input) => {
    if (point === 'afterProcessing' || point === 'inProcess') die();
    const result = await real.sendPayout(input);
    if (point === 'afterSend') die();
    return result;
  },
};
await runWorker(rt);
console.log('worker ready');
if (point === 'inProcess') {
  const app = await buildHttp(rt);
  const res = await app.inject({
    method: 'POST', url: '/withdrawals', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ amount: 1000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' }),
  });
  if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
}
