import { qrPngDataUrl } from '../src/pix/index.js';
import { SLO_MS, type Benchmark } from './lib/context.js';
import { startCeiling } from './lib/env.js';
import { withPixgate } from './lib/rig.js';
import { HttpClient } from './lib/http.js';
import { cpuMeter } from './lib/cpu.js';
import { bestRows, closedLoop, findCapacities, metered, openLoop, type CapacityTarget, type Operation } from './lib/load.js';
import { printTable } from './lib/stats.js';

const BODY = { method: 'PIX', amount: 1000, description: 'bench' };

/**
 * POST /transparents/create (with its QR PNG) against three ceilings on the same machine, in the same
 * run: a bare Fastify route, one INSERT per request on a pool of the same size, and QR PNG encoding
 * alone. Each target's figure is its highest sustained constant arrival rate (p99 ≤ SLO, no errors).
 */
export const chargeCreate: Benchmark = {
  name: 'charge-create',
  describe: 'charge create (with QR PNG) vs bare route, one INSERT, QR alone',
  async run({ server, quick }) {
    return withPixgate(server, {}, async ({ url, pixgate, fx, defer }) => {
      const ceiling = await startCeiling(url);
      defer(() => ceiling.stop());
      const { key } = await fx.merchant();
      const auth = { authorization: `Bearer ${key}` };
      const targets: Array<{ label: string; client: HttpClient; op: Operation; meter: ReturnType<typeof cpuMeter> }> = [];
      const target = (label: string, srv: typeof pixgate, path: string) => {
        const client = new HttpClient(srv.base, { maxSockets: 64 });
        targets.push({ label, client, meter: cpuMeter(srv.child.pid!), op: () => client.expect('POST', path, BODY, 201, auth).then(() => {}) });
      };
      target('ceiling: bare Fastify route', ceiling, '/bare');
      target('ceiling: one INSERT per request', ceiling, '/insert');
      target('ceiling: QR PNG encoding alone', ceiling, '/qr');
      target('Pixgate: POST /transparents/create', pixgate, '/transparents/create');

      const durationMs = quick ? 1200 : 2500;
      const searched: CapacityTarget[] = [];
      for (const t of targets) {
        await closedLoop({ concurrency: 8, durationMs: 300, op: t.op }); // warm-up (JIT, connections, plans)
        const estimate = await closedLoop({ concurrency: 32, durationMs: quick ? 700 : 1500, op: t.op });
        searched.push({ label: t.label, estimate, run: (rate) => metered(t.meter, () => openLoop({ rate, durationMs, op: t.op })) });
      }
      const searches = await findCapacities(searched, { sloMs: SLO_MS, steps: quick ? 3 : 5 });
      for (const t of targets) t.client.close();
      const best = bestRows(searches);
      const trials = searches.flatMap((s) => s.trials);

      const t0 = performance.now();
      let images = 0;
      while (performance.now() - t0 < 1000) qrPngDataUrl(`00020101021126580014br.gov.bcb.pix0136${crypto.randomUUID()}520400005303986540510.005802BR5910Loja Bench6009SAO PAULO62290525${images++}6304ABCD`);
      const qrPerSecond = (images * 1000) / (performance.now() - t0);

      const rate = (label: string) => best.find((b) => b.label.startsWith(label))?.rate ?? NaN;
      const insert = rate('ceiling: one INSERT');
      const charge = rate('Pixgate');
      const footer = [
        `Each row: the highest constant arrival rate with p99 ≤ ${SLO_MS} ms and zero errors (bisection over open-loop runs of ${durationMs / 1000} s, the four searches in lockstep), with its figures.`,
        `**charge create / one-INSERT ceiling = ${((charge / insert) * 100).toFixed(0)}%** (goal ≥ 50%); ` +
          `charge create / QR-alone ceiling = ${((charge / rate('ceiling: QR')) * 100).toFixed(0)}%; ` +
          `charge create / bare route = ${((charge / rate('ceiling: bare')) * 100).toFixed(1)}%.`,
        `QR PNG encoding in a tight loop on one thread (bench process): ${qrPerSecond.toFixed(0)} images/s (${(1000 / qrPerSecond).toFixed(2)} ms each).`,
      ];
      const summary = printTable('charge create vs its ceilings', best, footer);
      const detail = printTable('charge create: every run of the capacity searches', trials);
      return `${summary}\n<details><summary>every run</summary>\n\n${detail}\n</details>\n`;
    });
  },
};
