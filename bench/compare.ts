/**
 * Before/after figures of a change: charge create at a constant rate against two checkouts, in
 * alternating rounds (A, B, A, B…) on one database server, each build on its own fresh database, so a
 * busy patch of a shared machine falls on both. Prints every run and the medians per build.
 *
 *   npm run bench:compare -- <checkout A> <checkout B> [rate=300] [rounds=4]
 *
 * A checkout needs its node_modules (a symlink to this one's is enough when the dependencies match).
 */
import { resolve } from 'node:path';
import { cpuMeter } from './lib/cpu.js';
import { load, machine, startDatabaseServer } from './lib/env.js';
import { HttpClient } from './lib/http.js';
import { closedLoop, figures, metered, openLoop } from './lib/load.js';
import { withPixgate } from './lib/rig.js';
import { printTable, type Figures } from './lib/stats.js';

const BODY = { method: 'PIX', amount: 1000, description: 'bench' };

async function createRun(server: Awaited<ReturnType<typeof startDatabaseServer>>, root: string, label: string, rate: number): Promise<Figures> {
  return withPixgate(server, { root }, async ({ pixgate, fx, defer }) => {
    const client = new HttpClient(pixgate.base, { maxSockets: 64 });
    defer(() => client.close());
    const { key } = await fx.merchant();
    const auth = { authorization: `Bearer ${key}` };
    const op = () => client.expect('POST', '/transparents/create', BODY, 201, auth).then(() => {});
    await closedLoop({ concurrency: 8, durationMs: 1000, op }); // warm-up: JIT, connections, prepared statements
    const result = await metered(cpuMeter(pixgate.child.pid!), () => openLoop({ rate, durationMs: 5000, op }));
    return figures(label, rate, result);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main([a, b, rateArg = '300', roundsArg = '4']: string[]): Promise<void> {
  if (!a || !b) {
    console.error('usage: npm run bench:compare -- <checkout A> <checkout B> [rate] [rounds]');
    process.exit(2);
  }
  const [rate, rounds] = [Number(rateArg), Number(roundsArg)];
  const server = await startDatabaseServer();
  console.log(`charge create at ${rate}/s, ${rounds} alternating rounds; ${machine()}; load average ${load()}\nA = ${resolve(a)}\nB = ${resolve(b)}\n`);
  const runs: Figures[] = [];
  try {
    for (let r = 1; r <= rounds; r++) {
      for (const [name, root] of [['A', a], ['B', b]] as const) runs.push(await createRun(server, resolve(root), `${name} round ${r}`, rate));
    }
  } finally {
    await server.stop();
  }
  const of = (name: string) => runs.filter((r) => r.label.startsWith(name));
  const summary = (name: string) => {
    const rs = of(name);
    const m = (f: (r: Figures) => number | undefined) => median(rs.map((r) => f(r) ?? NaN));
    return `${name}: p50 ${m((r) => r.p50).toFixed(1)} ms, p99 ${m((r) => r.p99).toFixed(1)} ms, ` +
      `server ${m((r) => r.cpuServer).toFixed(2)} ms/op, db ${m((r) => r.cpuDb).toFixed(2)} ms/op`;
  };
  printTable('charge create, alternating builds', runs, ['medians:', `- ${summary('A')}`, `- ${summary('B')}`, `load average at end: ${load()}`]);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
