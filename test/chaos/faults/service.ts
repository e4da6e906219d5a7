import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../src/config.js';

const WORKER_UP_MS = 1500;
// A start on a 2-core machine shared with other test runs has taken over a minute.
const START_TIMEOUT_MS = 150_000;

/**
 * The real service (`node --import tsx src/main.ts serve`, what `npm start` runs) as a child process
 * on a fixed port, which the test SIGKILLs and starts again. `ready()` resolves while it is up.
 */
export class ServiceProcess {
  private proc: ChildProcess | null = null;
  private gate: Promise<void> = Promise.resolve();
  private openGate: (() => void) | null = null;
  private failGate: (err: Error) => void = () => {};
  private readonly stderr: string[] = [];
  kills = 0;
  starts = 0;
  /** Exits the test did not cause (a crash of the service itself). */
  readonly crashes: string[] = [];

  /** `command`: serve (API and worker), api, or worker (no HTTP: up once it has lived WORKER_UP_MS). */
  constructor(readonly port: number, private readonly env: Record<string, string>, readonly command: 'serve' | 'api' | 'worker' = 'serve') {}

  /** Started and (for an API) answering /health. */
  get up(): boolean {
    return this.proc !== null && this.openGate === null;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resolves while the service is up; while it is down, once it is healthy again. */
  ready(): Promise<void> {
    return this.gate;
  }

  private closeGate(): void {
    if (this.openGate) return;
    this.gate = new Promise<void>((resolve, reject) => {
      this.openGate = resolve;
      this.failGate = reject;
    });
    this.gate.catch(() => {});
  }

  start(): Promise<void> {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'src/main.ts'), this.command], {
      cwd: PROJECT_ROOT, env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', process.env.CHAOS_SERVICE_LOG ? 'pipe' : 'ignore', 'pipe'],
    });
    // The JSON log goes to stdout: kept beside stderr when asked for, else never read.
    proc.stdout?.on('data', (chunk: Buffer) => appendFileSync(process.env.CHAOS_SERVICE_LOG!, chunk));
    proc.stderr!.on('data', (chunk: Buffer) => {
      if (process.env.CHAOS_SERVICE_LOG) appendFileSync(process.env.CHAOS_SERVICE_LOG, chunk);
      this.stderr.push(chunk.toString());
      if (this.stderr.length > 50) this.stderr.shift();
    });
    proc.on('exit', (code, signal) => {
      if (this.proc === proc) {
        this.proc = null;
        this.crashes.push(`exit ${code ?? signal}: ${this.stderr.slice(-5).join('').slice(-800)}`);
        // Restarted like a process manager would, so the run goes on; the test fails on any crash.
        this.closeGate();
        setTimeout(() => void this.start().catch(() => {}), 200);
      }
    });
    this.proc = proc;
    this.starts++;
    this.closeGate();
    const gate = this.gate;
    this.waitHealthy(START_TIMEOUT_MS).then(() => {
      this.openGate?.();
      this.openGate = null;
    }, (err: Error) => {
      this.openGate = null;
      this.failGate(err);
    });
    return gate;
  }

  /** SIGKILL: no shutdown hook runs; transactions in flight are cut, jobs stay locked by a dead worker. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    this.closeGate();
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
    this.kills++;
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    if (this.command === 'worker') {
      await new Promise((r) => setTimeout(r, WORKER_UP_MS));
      if (!this.proc) throw new Error(`the worker exited while starting: ${this.crashes.at(-1) ?? ''}`);
      return;
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const res = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
        if (res.status === 200) return;
      } catch { /* not listening yet */ }
      if (!this.proc) throw new Error(`the service exited while starting: ${this.crashes.at(-1) ?? ''}`);
      if (Date.now() > deadline) throw new Error(`the service did not become healthy in ${timeoutMs} ms: ${this.stderr.join('').slice(-800)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
