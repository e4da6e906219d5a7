/**
 * Before/after figures of a change: charge create at a constant rate against two checkouts, in
 * alternating rounds (A, B, A, B…) on one database server, each build on its own fresh database, so a
 * busy patch of a shared machine falls on both. Prints every run and the medians per build.
 * `payouts` instead of a rate: sequential payouts (bench/withdrawals.ts), each run beside its own NOTIFY
 * floor, for [seconds=5] each.
 *
 *   npm run bench:compare -- <checkout A> <checkout B> [rate=300] [rounds=4]
 *   npm run bench:compare -- <checkout A> <checkout B> payouts [rounds=4] [seconds=5]
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
import { sequentialPayouts } from './withdrawals.js';

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

const medianOf = (rs: Figures[], f: (r: Figures) => number | undefined) => median(rs.map((r) => f(r) ?? NaN));

async function comparePayouts(a: string, b: string, rounds: number, seconds: number): Promise<void> {
  const server = await startDatabaseServer();
  console.log(`sequential payouts vs NOTIFY floor, ${seconds} s each, ${rounds} alternating rounds; ${machine()}; load average ${load()}\nA = ${resolve(a)}\nB = ${resolve(b)}\n`);
  const runs: Array<{ name: string; payouts: Figures; floor: Figures; ratio: number; load: string }> = [];
  try {
    for (let r = 1; r <= rounds; r++) {
      for (const [name, root] of [['A', a], ['B', b]] as const) {
        const at = load();
        const run = await sequentialPayouts(server, { durationMs: seconds * 1000, root: resolve(root), label: `${name} round ${r}` });
        runs.push({ name, ...run, load: at });
        console.log(`${name} round ${r}: ${run.payouts.throughput.toFixed(0)} payouts/s, floor ${run.floor.throughput.toFixed(0)}/s, ratio ${run.ratio.toFixed(2)}, load ${at}`);
      }
    }
  } finally {
    await server.stop();
  }
  const summary = (name: string) => {
    const rs = runs.filter((r) => r.name === name);
    const p = rs.map((r) => r.payouts);
    return `${name}: ${medianOf(p, (r) => r.throughput).toFixed(0)} payouts/s, ratio ${median(rs.map((r) => r.ratio)).toFixed(2)}, ` +
      `p50 ${medianOf(p, (r) => r.p50).toFixed(2)} ms, server ${medianOf(p, (r) => r.cpuServer).toFixed(2)} ms/op, db ${medianOf(p, (r) => r.cpuDb).toFixed(2)} ms/op ` +
      `(floor ${medianOf(rs.map((r) => r.floor), (r) => r.throughput).toFixed(0)}/s)`;
  };
  printTable('sequential payouts and their floors, alternating builds', runs.flatMap((r) => [r.payouts, r.floor]), [
    'ratios per run: ' + runs.map((r) => `${r.name} ${r.ratio.toFixed(2)} (load ${r.load.split(' ')[0]})`).join(', '),
    'payouts CPU per run, ' + runs.map((r) => `${r.name}: ${r.payouts.note}`).join('; '),
    'medians:', `- ${summary('A')}`, `- ${summary('B')}`, `load average at end: ${load()}`,
  ]);
}

async function main([a, b, rateArg = '300', roundsArg = '4', secondsArg = '5']: string[]): Promise<void> {
  if (!a || !b) {
    console.error('usage: npm run bench:compare -- <checkout A> <checkout B> [rate | payouts] [rounds] [seconds]');
    process.exit(2);
  }
  if (rateArg === 'payouts') return comparePayouts(a, b, Number(roundsArg), Number(secondsArg));
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
    const m = (f: (r: Figures) => number | undefined) => medianOf(rs, f);
    return `${name}: p50 ${m((r) => r.p50).toFixed(1)} ms, p99 ${m((r) => r.p99).toFixed(1)} ms, ` +
      `server ${m((r) => r.cpuServer).toFixed(2)} ms/op, db ${m((r) => r.cpuDb).toFixed(2)} ms/op`;
  };
  printTable('charge create, alternating builds', runs, ['medians:', `- ${summary('A')}`, `- ${summary('B')}`, `load average at end: ${load()}`]);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
