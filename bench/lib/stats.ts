import type { CpuUse } from './cpu.js';

/** Latency figures of one run: every sample is kept and sorted (runs are short, so this is exact and cheap). */
export interface Figures {
  label: string;
  /** Offered rate (requests scheduled per second); 0 for a run that was not rate-driven. */
  rate: number;
  ok: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Successful completions per second over the run, from its first scheduled send to its last answer. */
  throughput: number;
  /** A few error descriptions with counts, e.g. "500×3, ECONNRESET×1". */
  errorKinds: string;
  /** CPU ms per successful operation of the server under test and of PostgreSQL (bench/lib/cpu.ts). */
  cpuServer?: number;
  cpuDb?: number;
  note?: string;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarise(
  label: string,
  latencies: number[],
  opts: { rate: number; errors: number; elapsedMs: number; errorKinds?: Map<string, number>; note?: string; cpu?: CpuUse },
): Figures {
  const sorted = Float64Array.from(latencies).sort();
  const kinds = [...(opts.errorKinds ?? new Map()).entries()].sort((a, b) => b[1] - a[1]).slice(0, 4);
  return {
    label,
    rate: opts.rate,
    ok: latencies.length,
    errors: opts.errors,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    throughput: opts.elapsedMs > 0 ? (latencies.length * 1000) / opts.elapsedMs : 0,
    errorKinds: kinds.map(([k, n]) => `${k}×${n}`).join(', '),
    ...(opts.cpu && latencies.length > 0 && { cpuServer: opts.cpu.server / latencies.length, cpuDb: opts.cpu.db / latencies.length }),
    note: opts.note,
  };
}

const ms = (v: number) => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));

/** Prints a fixed-width table; the same layout is pasted into docs/performance.md (it is valid Markdown). */
export function printTable(title: string, rows: Figures[], footer: string[] = []): string {
  const cpu = rows.some((r) => r.cpuServer !== undefined);
  const head = ['run', 'offered/s', 'ok', 'errors', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'throughput/s', ...(cpu ? ['server CPU ms/op', 'db CPU ms/op'] : [])];
  const body = rows.map((r) => [
    r.label, r.rate ? String(Math.round(r.rate)) : '-', String(r.ok), r.errors ? `${r.errors} (${r.errorKinds})` : '0',
    ms(r.p50), ms(r.p95), ms(r.p99), ms(r.max), r.throughput.toFixed(0),
    ...(cpu ? [r.cpuServer === undefined ? '-' : r.cpuServer.toFixed(2), r.cpuDb === undefined || Number.isNaN(r.cpuDb) ? '-' : r.cpuDb.toFixed(2)] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const out = [
    `### ${title}`,
    '',
    line(head),
    `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|')}|`,
    ...body.map(line),
    ...(footer.length ? ['', ...footer] : []),
    '',
  ].join('\n');
  console.log(out);
  return out;
}
