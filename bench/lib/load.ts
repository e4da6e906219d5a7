import { setTimeout as sleep } from 'node:timers/promises';
import type { CpuUse } from './cpu.js';
import { RequestFailed } from './http.js';
import { summarise, type Figures } from './stats.js';

/**
 * One operation of a run. Resolves when it succeeded; throws (ideally a RequestFailed) when it did not.
 * `scheduledAt` (performance.now() time) lets an operation that completes elsewhere — a webhook arriving —
 * report its own latency by resolving with a number of milliseconds.
 */
export type Operation = (i: number, scheduledAt: number) => Promise<void | number>;

export interface RunResult {
  latencies: number[];
  errors: number;
  errorKinds: Map<string, number>;
  elapsedMs: number;
  cpu?: CpuUse;
}

/** Runs `fn` while measuring the CPU of the server under test and of PostgreSQL. */
export async function metered(meter: () => () => CpuUse, fn: () => Promise<RunResult>): Promise<RunResult> {
  const stop = meter();
  const result = await fn();
  return { ...result, cpu: stop() };
}

const kindOf = (err: unknown) => (err instanceof RequestFailed ? err.kind : err instanceof Error ? err.message.slice(0, 60) : String(err));

/**
 * Open loop at a constant arrival rate: operation i is scheduled at t0 + i/rate whatever the answers
 * before it, and its latency runs from that scheduled time, so a stalled server shows as latency
 * instead of silently lowering the load (no coordinated omission). Timers fire at ~1 ms granularity,
 * so operations due in the same millisecond leave together; that lag is counted in the latency.
 */
export async function openLoop(o: { rate: number; durationMs: number; op: Operation; drainMs?: number }): Promise<RunResult> {
  const total = Math.max(1, Math.round((o.rate * o.durationMs) / 1000));
  const interval = 1000 / o.rate;
  const latencies: number[] = [];
  const errorKinds = new Map<string, number>();
  let errors = 0;
  let inFlight = 0;
  let lastDone = 0;
  const t0 = performance.now();
  const fail = (err: unknown) => {
    errors++;
    const k = kindOf(err);
    errorKinds.set(k, (errorKinds.get(k) ?? 0) + 1);
  };
  const fire = (i: number, at: number) => {
    inFlight++;
    o.op(i, at).then(
      (own) => void latencies.push(typeof own === 'number' ? own : performance.now() - at),
      fail,
    ).finally(() => {
      inFlight--;
      lastDone = performance.now();
    });
  };
  let next = 0;
  while (next < total) {
    const now = performance.now();
    for (; next < total && t0 + next * interval <= now; next++) fire(next, t0 + next * interval);
    if (next < total) await sleep(Math.max(0, Math.min(1, t0 + next * interval - performance.now())));
  }
  const deadline = performance.now() + (o.drainMs ?? 15_000);
  while (inFlight > 0 && performance.now() < deadline) await sleep(2);
  if (inFlight > 0) {
    errors += inFlight;
    errorKinds.set('unfinished', inFlight);
  }
  return { latencies, errors, errorKinds, elapsedMs: (lastDone || performance.now()) - t0 };
}

/** Closed loop: `concurrency` workers back to back for `durationMs`. Only used to estimate where to start the open-loop search. */
export async function closedLoop(o: { concurrency: number; durationMs: number; op: Operation }): Promise<number> {
  let done = 0;
  let i = 0;
  const end = performance.now() + o.durationMs;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.concurrency }, async () => {
    while (performance.now() < end) {
      await o.op(i++, performance.now()).then(() => done++, () => {});
    }
  }));
  return (done * 1000) / (performance.now() - t0);
}

/** Several runs of one configuration as one: their samples together (more samples, a steadier tail). */
export function pooled(runs: RunResult[]): RunResult {
  const errorKinds = new Map<string, number>();
  for (const r of runs) for (const [k, n] of r.errorKinds) errorKinds.set(k, (errorKinds.get(k) ?? 0) + n);
  const cpus = runs.map((r) => r.cpu).filter((c): c is CpuUse => c !== undefined);
  return {
    latencies: runs.flatMap((r) => r.latencies),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    errorKinds,
    elapsedMs: runs.reduce((n, r) => n + r.elapsedMs, 0),
    ...(cpus.length === runs.length && { cpu: { server: cpus.reduce((n, c) => n + c.server, 0), db: cpus.reduce((n, c) => n + c.db, 0) } }),
  };
}

export const figures = (label: string, rate: number, r: RunResult, note?: string): Figures =>
  summarise(label, r.latencies, { rate, errors: r.errors, elapsedMs: r.elapsedMs, errorKinds: r.errorKinds, note, cpu: r.cpu });

export interface CapacityTarget {
  label: string;
  /** Closed-loop estimate of its throughput: the search starts at 80% of it. */
  estimate: number;
  run: (rate: number) => Promise<RunResult>;
  /** Called before each run (e.g. to stock what the run consumes). */
  prepare?: (rate: number) => Promise<void>;
}

export interface CapacitySearch {
  label: string;
  /** The highest offered rate that met the objective, with its figures; null when none did. */
  best: Figures | null;
  trials: Figures[];
}

/**
 * The highest constant arrival rate each target sustains: zero errors and p99 within `sloMs` over one
 * run. Over capacity the backlog grows through the run and p99 passes the objective, so p99 is the
 * test. Each search starts at 80% of its estimate and bisects. The targets are searched in lockstep —
 * step k of every target, then step k+1 — so a slow patch of a shared, noisy machine falls on all of
 * them rather than on one, and their ratio stays meaningful.
 */
export async function findCapacities(targets: CapacityTarget[], o: { sloMs: number; steps: number }): Promise<CapacitySearch[]> {
  const state = targets.map((t) => ({
    t, lo: 0, hi: Infinity, rate: Math.max(1, Math.round(t.estimate * 0.8)), done: false,
    search: { label: t.label, best: null, trials: [] } as CapacitySearch,
  }));
  for (let step = 0; step < o.steps; step++) {
    for (const s of state) {
      if (s.done) continue;
      await s.t.prepare?.(s.rate);
      const f = figures(`${s.t.label} @ ${s.rate}/s`, s.rate, await s.t.run(s.rate));
      const pass = f.errors === 0 && f.p99 <= o.sloMs;
      f.note = pass ? 'pass' : 'fail';
      s.search.trials.push(f);
      if (pass) {
        s.lo = s.rate;
        s.search.best = f;
      } else s.hi = s.rate;
      s.rate = Math.round(s.hi === Infinity ? s.lo * 1.3 : (s.lo + s.hi) / 2);
      s.done = s.rate === s.lo || s.rate === s.hi;
      await sleep(300); // let the run's stragglers and background jobs settle
    }
  }
  return state.map((s) => s.search);
}

/** One summary row per search: its best run, or its first run marked as failing. */
export const bestRows = (searches: CapacitySearch[]): Figures[] =>
  searches.map((s) => (s.best ? { ...s.best, label: s.label } : { ...s.trials[0]!, label: `${s.label} (no rate met the objective)`, rate: 0 }));
