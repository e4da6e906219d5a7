// A worker process that SIGKILLs itself mid-payout: run by crash-sigkill.test.ts as a child process.
// argv: <database url> <point: afterProcessing | afterSend>
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { createRuntime, runWorker } from '../../src/composition.js';

const [databaseUrl, point] = process.argv.slice(2);
const config = loadConfig(
  { ADMIN_TOKEN: 'unused'.padEnd(32, '-'), ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', SIM_PAYOUT_DELAY_MS: '20' },
  { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-dying-')) },
);
const rt = createRuntime(config, createPool(databaseUrl!, 4));
const real = rt.provider;
const die = () => process.kill(process.pid, 'SIGKILL');
rt.provider = {
  ...real,
  // Processing asks the provider first: dying here is dying after PROCESSING committed, before any send.
  getPayout: async (id) => {
    if (point === 'afterProcessing') die();
    return real.getPayout(id);
  },
  sendPayout: async (input) => {
    const result = await real.sendPayout(input);
    if (point === 'afterSend') die();
    return result;
  },
};
await runWorker(rt);
console.log('worker ready');
