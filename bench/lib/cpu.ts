import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** [own user+system, reaped children's user+system] CPU of a process, in ms; zeros once it is gone. */
function cpuOf(pid: number): [number, number] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
    return [(Number(f[11]) + Number(f[12])) * TICK_MS, (Number(f[13]) + Number(f[14])) * TICK_MS];
  } catch {
    return [0, 0];
  }
}

function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** The embedded server's postmaster (DATABASE_URL's server may be elsewhere: then no database figure). */
function postmasterPid(): number | null {
  const file = join(PROJECT_ROOT, '.data', 'bench', 'pg', 'postmaster.pid');
  if (process.env.DATABASE_URL || !existsSync(file)) return null;
  return Number(readFileSync(file, 'utf8').split('\n')[0]) || null;
}

/** CPU ms of a PostgreSQL server so far: its postmaster, its processes, and those that ended. */
export function postgresCpu(postmaster: number): number {
  const [own, reaped] = cpuOf(postmaster);
  return own + reaped + childrenOf(postmaster).reduce((sum, pid) => sum + cpuOf(pid)[0], 0);
}

export interface CpuUse {
  /** CPU ms of the server process under test (API and, for Pixgate, its worker). */
  server: number;
  /** CPU ms of all PostgreSQL processes of the benchmark's server; NaN when it is not local. */
  db: number;
}

/**
 * CPU time spent by the server under test and by PostgreSQL during a run: on a machine shared with
 * other work, CPU per operation moves much less than latency or throughput, so it shows what an
 * optimisation saved even when the clock figures are noisy.
 */
export function cpuMeter(serverPid: number): () => () => CpuUse {
  const pm = postmasterPid();
  const dbNow = () => (pm === null ? NaN : postgresCpu(pm));
  return () => {
    const s0 = cpuOf(serverPid)[0];
    const d0 = dbNow();
    return () => ({ server: cpuOf(serverPid)[0] - s0, db: dbNow() - d0 });
  };
}
