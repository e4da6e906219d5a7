import http from 'node:http';
import type { Benchmark } from './lib/context.js';
import { withPixgate } from './lib/rig.js';
import { pool as inPool } from './lib/fixtures.js';
import { cpuMeter } from './lib/cpu.js';
import { percentile } from './lib/stats.js';

/** PAY_PAGES (default 1000) waiting pages, PAY_RATE (default 50) payments a second. */
const PAGES = Number(process.env.PAY_PAGES ?? 1000);
const RATE = Number(process.env.PAY_RATE ?? 50);

/** A waiting payment page's server-sent event stream: resolves with the arrival time of the first non-PENDING status. */
function waitPage(base: string, checkoutId: string): { opened: Promise<void>; changed: Promise<number>; close(): void } {
  let req!: http.ClientRequest;
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  const changed = new Promise<number>((resolve, reject) => {
    req = http.get(`${base}/pay/${checkoutId}/events`, { agent: false }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = event.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          if (JSON.parse(data.slice(6)).status === 'PENDING') open();
          else resolve(performance.now());
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return { opened, changed, close: () => req.destroy() };
}

/** Requests per second of one GET path, `concurrency` at a time for `ms`. */
async function throughput(base: string, path: string, ms: number, concurrency = 16): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const end = performance.now() + ms;
  let done = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      await new Promise<void>((resolve, reject) => {
        http.get(`${base}${path}`, { agent }, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject);
      });
      done++;
    }
  }));
  agent.destroy();
  return done / (ms / 1000);
}

/**
 * The payment page under load (docs/checkouts.md#live-status): PAY_PAGES pages wait on their server-sent event
 * streams while their checkouts are paid at PAY_RATE/s; latency = the pay request's send → the page's stream
 * says PAID. Also the server CPU the idle waiting pages cost, and GET /pay/{id} pages/s against a static file.
 */
export const payPages: Benchmark = {
  name: 'pay-pages',
  describe: `${PAGES} payment pages waiting (SSE) while payments run at ${RATE}/s; pay page vs static file throughput`,
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ pixgate, fx }) => {
      const base = pixgate.base;
      const { key } = await fx.merchant();
      const checkouts = await inPool(Array.from({ length: PAGES }, (_, i) => i), 8, async () => {
        const k = await fx.api.json('POST', '/checkouts', { items: [{ name: 'Pão', quantity: 1, unitPrice: 1000 }] }, 201, { authorization: `Bearer ${key}` });
        return { id: k.data.id as string, chargeId: k.data.chargeId as string };
      });
      const pages = checkouts.map((k) => waitPage(base, k.id));
      await Promise.all(pages.map((p) => p.opened));
      const cpu = cpuMeter(pixgate.child.pid!);
      const idleMs = quick ? 2000 : 10_000;
      const idle = cpu();
      await new Promise((r) => setTimeout(r, idleMs));
      const idleCpu = idle();

      const latencies: number[] = [];
      const started = performance.now();
      await Promise.all(checkouts.map(async (k, i) => {
        await new Promise((r) => setTimeout(r, Math.max(0, started + (i * 1000) / RATE - performance.now())));
        const sent = performance.now();
        await fx.pay(k.chargeId);
        latencies.push((await pages[i]!.changed) - sent);
      }));
      pages.forEach((p) => p.close());
      const sorted = Float64Array.from(latencies).sort();
      const ms = quick ? 2000 : 10_000;
      const page = await throughput(base, `/pay/${checkouts[0]!.id}`, ms);
      const file = await throughput(base, '/pay/assets/pages.css', ms);
      const lines = [
        `## pay-pages — ${PAGES} waiting pages, payments at ${RATE}/s`,
        '',
        '| figure | value |',
        '|---|---|',
        `| payment → page knows it, p50 | ${percentile(sorted, 50).toFixed(0)} ms |`,
        `| payment → page knows it, p99 | ${percentile(sorted, 99).toFixed(0)} ms |`,
        `| server CPU while ${PAGES} pages wait | ${(idleCpu.server / (idleMs / 1000)).toFixed(1)} ms/s (db ${(idleCpu.db / (idleMs / 1000)).toFixed(1)} ms/s) |`,
        `| GET /pay/{id} | ${page.toFixed(0)} pages/s |`,
        `| GET /pay/assets/pages.css (static ceiling) | ${file.toFixed(0)} req/s |`,
        '',
      ];
      console.log(lines.join('\n'));
      return lines.join('\n');
    });
  },
};
