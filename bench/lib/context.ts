import type { BenchServer } from './env.js';

/** What every benchmark gets from bench/run.ts; it returns the Markdown it printed. */
export interface BenchContext {
  server: BenchServer;
  /** Shorter runs (BENCH_QUICK=1) for trying the harness; figures are then only indicative. */
  quick: boolean;
}

export interface Benchmark {
  name: string;
  describe: string;
  run(ctx: BenchContext): Promise<string>;
}

/** Latency objective of the capacity searches: the highest rate whose p99 stays within it, with no errors. */
export const SLO_MS = 100;
